import type { CallList, CursorSlice } from './call-list.js';
import type { BrokenPaging } from './types.js';

/** Every switch off: the contract kept. */
export const NO_BROKEN_PAGING: BrokenPaging = {
  stuckCursor: false,
  cyclingCursor: false,
  emptyPagesForever: false,
  ignoreOffset: false,
  negativeTotal: false,
};

/** What the next_cursor of a cursor page points at: a position to encode or the request's own cursor, verbatim. */
type NextCursor = { position: number } | { verbatim: string };

/** The `next_cursor` and `has_more` a cursor page carries under `broken`. */
export function brokenCursorPage(
  broken: BrokenPaging,
  list: CallList,
  request: { cursor: string; from: number; limit: number },
  slice: CursorSlice,
): { next: NextCursor; hasMore: boolean } {
  if (broken.stuckCursor && request.cursor !== '') return { next: { verbatim: request.cursor }, hasMore: true };
  if (broken.cyclingCursor) {
    const second = list.fromCursor(list.start, request.limit).next;
    const third = list.fromCursor(second, request.limit).next;
    const onSecond = request.cursor !== '' && request.from === second;
    return { next: { position: onSecond ? third : second }, hasMore: true };
  }
  return { next: { position: slice.next }, hasMore: slice.hasMore || broken.emptyPagesForever };
}
