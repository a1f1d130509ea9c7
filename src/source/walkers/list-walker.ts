import { isoSeconds } from '../../normalize/index.js';
import type { Json, JsonObject } from '../../sink/sink.js';
import { headMarkOf, orderAgainstHead, orderWithin, reachesMark } from './list-order.js';
import { fetchPage, listPages, PayloadShapeError, recordsOf, type ListPage, type PageKeys, type Place } from './pager.js';
import { listPosition, readPosition, storable, type Descent, type HeadMark, type ListOrder, type ListPosition } from './positions.js';
import { nowOf, type RevisitSettings, type WalkContext, type WalkPage, type Walker } from './walker.js';

/**
 * Every v1 list walk (cursor, offset and page paging, built-in or config-declared), whichever
 * end the server lists first. Oldest first, the stored end of the list is where new records
 * appear, so a run resumes there (one request when nothing is new). Newest first, new records
 * appear at the head: a run walks from the head until it reaches what is stored
 * (`walkFromHead` below). With `order: auto` (the default) the records tell which it is; until they
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

// The walk from the head (newest first, or order not shown yet)

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
async function* walkFromHead(context: WalkContext, stored: ListPosition | undefined, order: ListOrder | undefined): AsyncGenerator<WalkPage> {
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
  const descent: Descent = {
    top: null,
    stopAt: position?.head ?? null,
    revisitFrom: due && context.revisit !== undefined ? revisitWindowStart(context.revisit) : undefined,
  };
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
  // The created_at of the last record walked, so the boundary between pages counts for the order.
  let last: string | undefined;
  const previousHead = stored?.head ?? null;
  const stop = stopMark(start);
  for (let first = true; ; first = false) {
    const step = await pages.next();
    if (step.done === true) return { order: known };
    const page = step.value;
    const { keys } = page;
    const seen = orderWithin(keys.createdAt, last);
    if (known !== undefined) expectOrder(context, keys, last, known);
    known ??= seen;
    // The head page of a list whose order is still unknown, against the head stored last time.
    const probe = first && fromHead && known === undefined && previousHead !== null ? orderAgainstHead(keys, previousHead) : undefined;
    if (probe === 'newest_first') known = probe;
    if (first && fromHead) top = headOf(context, keys, previousHead);
    last = lastOf(keys, last);

    if (known === 'oldest_first' || (known === undefined && stored !== undefined && first && fromHead && !page.done)) {
      if (known === undefined && probe !== 'unchanged') {
        context.warn(
          `${context.descriptor.path}: the records do not show which end of the list comes first; going on as oldest first (set "order" for this stream to be sure)`,
        );
      }
      yield* onToEnd(context, page, pages, known, top, stored, last);
      return { order: known };
    }
    const reached = stop !== null && reachesMark(keys, stop);
    const finished = page.done || reached;
    const now = nowOf(context);
    const revisitedAt = finished && start.revisitFrom !== undefined ? now : (stored?.revisitedAt ?? now);
    const fields = finished
      ? { order: known, head: top ?? undefined, revisitedAt }
      : { order: known, head: previousHead ?? undefined, descent: { top, stopAt: start.stopAt, revisitFrom: start.revisitFrom }, revisitedAt };
    const position = listPositionAt(page.after, fields);
    yield walkPage(page, position);
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
  last: string | undefined,
): AsyncGenerator<WalkPage> {
  const head = order === undefined ? (top ?? undefined) : undefined;
  const storedEnd = stored === undefined || stored.descent !== undefined ? undefined : placeOf(stored);
  if (storedEnd === undefined || storedEnd.offset <= page.after.offset) {
    yield walkPage(page, listPositionAt(page.after, { order, head }));
    if (!page.done) yield* walkToEnd(context, pages, order, head, last);
    return;
  }
  await pages.return(undefined);
  yield walkPage(page, listPositionAt(storedEnd, { order, head }));
  yield* walkToEnd(context, listPages(context, storedEnd), order, head);
}

/** Where a walk from the head stops: the stored head, or lower, at the revisit window, when one is due. */
function stopMark(descent: Descent): HeadMark | null {
  const { stopAt, revisitFrom } = descent;
  if (stopAt === null || revisitFrom === undefined || stopAt.createdAt === null) return stopAt;
  return { createdAt: revisitFrom < stopAt.createdAt ? revisitFrom : stopAt.createdAt, ids: [] };
}

/** The head a walk starts from; a record dated too far ahead is warned about once and left out. */
function headOf(context: WalkContext, keys: PageKeys, previous: HeadMark | null): HeadMark | null {
  const head = headMarkOf(keys, isoSeconds(nowOf(context) + context.maxFutureSkewMs));
  for (const id of head?.future ?? []) {
    if (previous?.future?.includes(id) !== true) {
      context.warn(
        `${context.descriptor.path}: record ${JSON.stringify(id)} is dated more than ${Math.round(context.maxFutureSkewMs / 60_000)} min ahead of now; stored, but it does not mark the head of the list`,
      );
    }
  }
  return head ?? previous;
}

// The walk to the end (oldest first)

/** Where a stored list position stands. */
function placeOf(position: ListPosition): Place {
  const { offset, pageCap } = position;
  return position.mode === 'cursor' ? { cursor: position.cursor, offset, pageCap } : { offset, pageCap };
}

/** A list page as the walk yields it: its raw records, the position after it. */
function walkPage(page: ListPage, position: JsonObject): WalkPage {
  const { records, total, replacedUtf8 } = page;
  return { records, total, position, replacedUtf8 };
}

/** The `created_at` of the last record walked: the page's last record, or the one before when the page is empty. */
function lastOf(keys: PageKeys, before: string | undefined): string | undefined {
  return keys.createdAt.length === 0 ? before : keys.createdAt[keys.createdAt.length - 1];
}

/** The list position after a page: resumable by cursor when there is one, else by offset. */
function listPositionAt(place: Place, fields: Omit<ListPosition, 'mode' | 'cursor' | 'offset' | 'pageCap'>): JsonObject {
  const { offset, pageCap } = place;
  const at: ListPosition =
    place.cursor === undefined ? { ...fields, mode: 'offset', offset, pageCap } : { ...fields, mode: 'cursor', cursor: place.cursor, offset, pageCap };
  return storable(at);
}

/**
 * An oldest-first walk to the end of the list over `pages`. `order` is undefined while the
 * records have not shown it; `head` (the stored head) is then kept so the next run can still tell.
 */
async function* walkToEnd(
  context: WalkContext,
  pages: AsyncIterator<ListPage>,
  order: ListOrder | undefined,
  head: HeadMark | undefined,
  last?: string,
): AsyncGenerator<WalkPage> {
  let known = order;
  let previous = last;
  for (;;) {
    const step = await pages.next();
    if (step.done === true) return;
    const page = step.value;
    const seen = orderWithin(page.keys.createdAt, previous);
    if (known !== undefined) expectOrder(context, page.keys, previous, known);
    known ??= seen === 'oldest_first' ? seen : undefined;
    previous = lastOf(page.keys, previous);
    yield walkPage(page, listPositionAt(page.after, { order: known, head: known === undefined ? head : undefined }));
  }
}

/**
 * Records that contradict the order a walk relies on stop the stream: trusting it would lose
 * records. One step against the order is not enough (timestamps that are not quite in list
 * order, a short last page); three records in a row are.
 */
function expectOrder(context: WalkContext, keys: PageKeys, before: string | undefined, expected: ListOrder): void {
  const seen = orderWithin(keys.createdAt, before, 2);
  if (seen === undefined || seen === expected) return;
  const configured = (context.descriptor.order ?? context.order) !== 'auto';
  throw new PayloadShapeError(
    `GET ${context.descriptor.path}: the records come ${describeOrder(seen)}, but the walk ${configured ? 'is configured' : 'detected'} ${describeOrder(expected)}; ` +
      (configured ? 'fix "order" for this stream in the config' : "the server changed its order: delete the stream's sync_state row to walk it again"),
  );
}

function describeOrder(order: ListOrder | 'auto'): string {
  return order === 'auto' ? 'auto' : order.replace('_', ' ');
}

// The revisit of recent records (oldest-first lists)

/** The oldest `created_at` that is still revisited, in the stored timestamp form. */
export function revisitWindowStart(settings: RevisitSettings): string {
  return isoSeconds(settings.now() - settings.windowMs);
}

/** `[offset of a page's first record, its created_at]`, oldest first. */
type Mark = [number, string];

const MAX_MARKS = 2_000;

/**
 * Wraps a v1 list walker (cursor, offset, page) so that, on an oldest-first list, records created
 * within the window are read again every `everyMs` (newest-first walks reach down into the window
 * themselves, see `walkFromHead` in `list-walker.ts`): the walk remembers where each recent page began (`marks`), and when a
 * revisit is due it re-reads by offset from the page before the window to the stored end. Rows
 * that did not change are not rewritten (the sinks compare `raw`), so a revisit costs requests in
 * proportion to the window, once per interval, and never a full re-sync.
 */
export function withRevisit(inner: Walker, settings: RevisitSettings): Walker {
  return async function* walk(context: WalkContext, position: JsonObject | undefined): AsyncGenerator<WalkPage> {
    const now = settings.now();
    const windowStart = revisitWindowStart(settings);
    const stored = readPosition(listPosition, position, context.descriptor.name);
    let marks: Mark[] = stored?.marks ?? [];
    let revisitedAt = stored?.revisitedAt ?? now;
    if (stored !== undefined && position !== undefined && byOffset(stored) && now - revisitedAt >= settings.everyMs && marks.length > 0) {
      revisitedAt = now;
      const done: ListPosition = { ...stored, marks, revisitedAt };
      yield* revisitFrom(context, startOffset(marks, windowStart), stored.offset, position, storable(done));
    }
    for await (const page of inner(context, position)) {
      const walked = readPosition(listPosition, page.position, context.descriptor.name);
      if (walked === undefined) throw new Error(`${context.descriptor.path}: the walk yielded no position`);
      if (!byOffset(walked)) {
        yield page;
        continue;
      }
      marks = addMark(context, marks, walked.offset - page.records.length, page.records, windowStart);
      const at: ListPosition = { ...walked, marks, revisitedAt };
      yield { ...page, position: storable(at) };
    }
  };
}

async function* revisitFrom(context: WalkContext, start: number, end: number, storedPosition: JsonObject, finalPosition: JsonObject): AsyncGenerator<WalkPage> {
  for (let offset = start; offset < end;) {
    const { payload, replacedUtf8 } = await fetchPage(context, { limit: context.pageSize, offset });
    const records = recordsOf(payload, context.descriptor).slice(0, end - offset);
    offset += records.length;
    const last = records.length === 0 || offset >= end;
    // Only the last revisit page records that the revisit happened; a cut-off one is redone.
    yield { records, position: last ? finalPosition : storedPosition, replacedUtf8 };
    if (last) return;
  }
}

/** The offset of the last page that began before the window, so the whole window is covered. */
function startOffset(marks: readonly Mark[], windowStart: string): number {
  let start = marks[0]?.[0] ?? 0;
  for (const [offset, createdAt] of marks) {
    if (createdAt < windowStart) start = offset;
  }
  return start;
}

function addMark(context: WalkContext, marks: readonly Mark[], offset: number, records: WalkPage['records'], windowStart: string): Mark[] {
  let createdAt: string | undefined;
  for (let index = 0; createdAt === undefined && index < records.length; index++) {
    createdAt = context.descriptor.keys.createdAt(records[index] as Json, context.normalizeContext);
  }
  const next: Mark[] = createdAt === undefined ? [...marks] : [...marks, [offset, createdAt]];
  // Keep every mark in the window and the last one before it (where a revisit starts).
  const firstInWindow = next.findIndex(([, at]) => at >= windowStart);
  const keepFrom = firstInWindow === -1 ? Math.max(0, next.length - 1) : Math.max(0, firstInWindow - 1);
  return next.slice(keepFrom).slice(-MAX_MARKS);
}

/** Walks from the head (newest first, or order not known yet) revisit by walking further down instead. */
function byOffset(position: ListPosition): boolean {
  return position.order !== 'newest_first' && position.descent === undefined;
}
