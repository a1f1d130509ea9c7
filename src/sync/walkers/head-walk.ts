import { isoSeconds } from '../../normalize/index.js';
import { headMarkOf, orderAgainstHead, orderWithin, reachesMark } from './order.js';
import { listPages, type ListPage } from './pager.js';
import { listPosition, readPosition, type Descent, type HeadMark, type ListOrder, type ListPosition } from './positions.js';
import { revisitWindowStart } from './revisit.js';
import { expectOrder, listPositionAt, placeOf, walkToEnd } from './to-end.js';
import { nowOf, type WalkContext, type WalkItem, type WalkPage } from './walker.js';

interface Walked {
  /** The order the walk ended with (undefined: still not shown by the records). */
  readonly order: ListOrder | undefined;
  /** The position stored after the last page, when the walk ended at the head's stored mark. */
  readonly finished?: ListPosition;
}

/**
 * Walks a list from its head: a newest-first list (new records appear at the head) down to
 * the head stored by the previous walk, or a list whose order the records have not shown yet.
 * A walk cut off half way (the first sync of a large list) is finished first, then the head is
 * walked again for what arrived meanwhile. When a revisit is due the walk goes on down to the
 * start of the revisit window, so late changes to recent records are picked up.
 */
export async function* walkFromHead(context: WalkContext, stored: ListPosition | undefined, order: ListOrder | undefined): AsyncGenerator<WalkPage> {
  let position = stored;
  let known = order;
  if (position?.descent !== undefined) {
    const walked = yield* descend(context, listPages(context, placeOf(position)), position.descent, position, known, false);
    if (walked.finished === undefined) return;
    position = walked.finished;
    known = walked.order;
  }
  const now = nowOf(context);
  const revisitedAt = position?.revisitedAt ?? now;
  const due = context.revisit !== undefined && position?.head?.createdAt != null && now - revisitedAt >= context.revisit.everyMs;
  const descent: Descent = { top: null, stopAt: position?.head ?? null, revisitFrom: due && context.revisit !== undefined ? revisitWindowStart(context.revisit) : undefined };
  yield* descend(context, listPages(context, { offset: 0, pageCap: position?.pageCap }), descent, position, known, true);
}

async function* descend(
  context: WalkContext,
  pages: AsyncGenerator<ListPage>,
  start: Descent,
  stored: ListPosition | undefined,
  order: ListOrder | undefined,
  fromHead: boolean,
): AsyncGenerator<WalkPage, Walked> {
  let known = order;
  let top = start.top;
  let last: WalkItem | undefined;
  const previousHead = stored?.head ?? null;
  const stop = stopMark(start);
  for (let first = true; ; first = false) {
    const step = await pages.next();
    if (step.done === true) return { order: known };
    const page = step.value;
    const seen = orderWithin(page.items, last);
    if (known !== undefined) expectOrder(context, page.items, last, known);
    known ??= seen;
    // The head page of a list whose order is still unknown, against the head stored last time.
    const probe = first && fromHead && known === undefined && previousHead !== null ? orderAgainstHead(page.items, previousHead) : undefined;
    if (probe === 'newest_first') known = probe;
    if (first && fromHead) top = headOf(context, page.items, previousHead);
    last = page.items.at(-1) ?? last;

    if (known === 'oldest_first' || (known === undefined && stored !== undefined && first && fromHead && !page.done)) {
      if (known === undefined && probe !== 'unchanged') {
        context.warn(`${context.descriptor.path}: the records do not show which end of the list comes first; going on as oldest first (set "order" for this stream to be sure)`);
      }
      yield* onToEnd(context, page, pages, known, top, stored, last);
      return { order: known };
    }
    const reached = stop !== null && reachesMark(page.items, stop);
    const finished = page.done || reached;
    const now = nowOf(context);
    const revisitedAt = finished && start.revisitFrom !== undefined ? now : (stored?.revisitedAt ?? now);
    const fields = finished
      ? { order: known, head: top ?? undefined, revisitedAt }
      : { order: known, head: previousHead ?? undefined, descent: { top, stopAt: start.stopAt, revisitFrom: start.revisitFrom }, revisitedAt };
    const position = listPositionAt(page.after, fields);
    yield { items: page.items, total: page.total, position };
    if (finished) {
      await pages.return(undefined);
      return { order: known, finished: readPosition(listPosition, position, context.descriptor.name) };
    }
  }
}

/**
 * The list turned out oldest first (or its order is unknown and a walk stored before): the head
 * page goes in with the stored place kept, then the walk goes on from the stored end, or, on a
 * first sync, simply on to the end.
 */
async function* onToEnd(
  context: WalkContext,
  page: ListPage,
  pages: AsyncGenerator<ListPage>,
  order: ListOrder | undefined,
  top: HeadMark | null,
  stored: ListPosition | undefined,
  last: WalkItem | undefined,
): AsyncGenerator<WalkPage> {
  const head = order === undefined ? (top ?? undefined) : undefined;
  const storedEnd = stored === undefined || stored.descent !== undefined ? undefined : placeOf(stored);
  if (storedEnd === undefined || storedEnd.offset <= page.after.offset) {
    yield { items: page.items, total: page.total, position: listPositionAt(page.after, { order, head }) };
    if (!page.done) yield* walkToEnd(context, pages, order, head, last);
    return;
  }
  await pages.return(undefined);
  yield { items: page.items, total: page.total, position: listPositionAt(storedEnd, { order, head }) };
  yield* walkToEnd(context, listPages(context, storedEnd), order, head);
}

/** Where a walk from the head stops: the stored head, or lower, at the revisit window, when one is due. */
function stopMark(descent: Descent): HeadMark | null {
  const { stopAt, revisitFrom } = descent;
  if (stopAt === null || revisitFrom === undefined || stopAt.createdAt === null) return stopAt;
  return { createdAt: revisitFrom < stopAt.createdAt ? revisitFrom : stopAt.createdAt, ids: [] };
}

/** The head a walk starts from; a record dated too far ahead is warned about once and left out. */
function headOf(context: WalkContext, items: readonly WalkItem[], previous: HeadMark | null): HeadMark | null {
  const head = headMarkOf(items, isoSeconds(nowOf(context) + context.maxFutureSkewMs));
  for (const id of head?.future ?? []) {
    if (previous?.future?.includes(id) !== true) {
      context.warn(`${context.descriptor.path}: record ${JSON.stringify(id)} is dated more than ${Math.round(context.maxFutureSkewMs / 60_000)} min ahead of now; stored, but it does not mark the head of the list`);
    }
  }
  return head ?? previous;
}
