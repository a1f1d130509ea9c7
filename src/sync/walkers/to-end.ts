import type { JsonObject } from '../../sink.js';
import { orderWithin } from './order.js';
import type { ListPage, Place } from './pager.js';
import { PayloadShapeError } from './page-fields.js';
import { storable, type HeadMark, type ListOrder, type ListPosition } from './positions.js';
import type { WalkContext, WalkItem, WalkPage } from './walker.js';

/** Where a stored list position stands. */
export function placeOf(position: ListPosition): Place {
  const { offset, pageCap } = position;
  return position.mode === 'cursor' ? { cursor: position.cursor, offset, pageCap } : { offset, pageCap };
}

/** The list position after a page: resumable by cursor when there is one, else by offset. */
export function listPositionAt(place: Place, fields: Omit<ListPosition, 'mode' | 'cursor' | 'offset' | 'pageCap'>): JsonObject {
  const { offset, pageCap } = place;
  const at: ListPosition = place.cursor === undefined ? { ...fields, mode: 'offset', offset, pageCap } : { ...fields, mode: 'cursor', cursor: place.cursor, offset, pageCap };
  return storable(at);
}

/**
 * An oldest-first walk to the end of the list over `pages`. `order` is undefined while the
 * records have not shown it; `head` (the stored head) is then kept so the next run can still tell.
 */
export async function* walkToEnd(
  context: WalkContext,
  pages: AsyncIterator<ListPage>,
  order: ListOrder | undefined,
  head: HeadMark | undefined,
  last?: WalkItem,
): AsyncGenerator<WalkPage> {
  let known = order;
  let previous = last;
  for (;;) {
    const step = await pages.next();
    if (step.done === true) return;
    const page = step.value;
    const seen = orderWithin(page.items, previous);
    if (known !== undefined) expectOrder(context, page.items, previous, known);
    known ??= seen === 'oldest_first' ? seen : undefined;
    previous = page.items.at(-1) ?? previous;
    yield { items: page.items, total: page.total, position: listPositionAt(page.after, { order: known, head: known === undefined ? head : undefined }) };
  }
}

/**
 * Records that contradict the order a walk relies on stop the stream: trusting it would lose
 * records. One step against the order is not enough (timestamps that are not quite in list
 * order, a short last page); three records in a row are.
 */
export function expectOrder(context: WalkContext, items: readonly WalkItem[], before: WalkItem | undefined, expected: ListOrder): void {
  const seen = orderWithin(items, before, 2);
  if (seen === undefined || seen === expected) return;
  const configured = (context.descriptor.order ?? context.order) !== 'auto';
  throw new PayloadShapeError(
    `GET ${context.descriptor.path}: the records come ${describeOrder(seen)}, but the walk ${configured ? 'is configured' : 'detected'} ${describeOrder(expected)}; ` +
      (configured ? 'fix "order" for this stream in the config' : 'the server changed its order: delete the stream\'s sync_state row to walk it again'),
  );
}

export function describeOrder(order: ListOrder | 'auto'): string {
  return order === 'auto' ? 'auto' : order.replace('_', ' ');
}
