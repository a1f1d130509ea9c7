import type { JsonObject } from '../../sink.js';
import { walkFromHead } from './head-walk.js';
import { listPages } from './pager.js';
import { listPosition, readPosition } from './positions.js';
import { describeOrder, placeOf, walkToEnd } from './to-end.js';
import type { WalkContext, WalkPage } from './walker.js';

/**
 * Every v1 list walk (cursor, offset and page paging, built-in or config-declared), whichever
 * end the server lists first. Oldest first, the stored end of the list is where new records
 * appear, so a run resumes there (one request when nothing is new). Newest first, new records
 * appear at the head: a run walks from the head until it reaches what is stored
 * (`head-walk.ts`). With `order: auto` (the default) the records tell which it is; until they
 * have, walks start at the head, which is right for both.
 */
export async function* walkList(context: WalkContext, position: JsonObject | undefined): AsyncGenerator<WalkPage> {
  let stored = readPosition(listPosition, position, context.descriptor.name);
  const setting = context.descriptor.order ?? context.order;
  if (setting !== 'auto' && stored?.order !== undefined && stored.order !== setting) {
    context.warn(
      `${context.descriptor.path}: the stored position was written for a list ${describeOrder(stored.order)}, the config now says ${describeOrder(setting)}; walking the whole list once`,
    );
    stored = undefined;
  }
  const order = setting === 'auto' ? stored?.order : setting;
  if (order === 'oldest_first') {
    yield* walkToEnd(context, listPages(context, stored === undefined ? { offset: 0 } : placeOf(stored)), 'oldest_first', undefined);
    return;
  }
  yield* walkFromHead(context, stored, order);
}
