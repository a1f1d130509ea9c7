import type { Json, JsonObject } from '../../sink/sink.js';
import { isUpstreamError } from '../upstream/index.js';
import type { StreamDescriptor } from '../streams/stream-descriptor.js';
import type { HeadMark, ListOrder } from './positions.js';
import type { WalkContext, WalkItem } from './walker.js';

/** An upstream payload that breaks the contract for a whole page; the stream stops with this message. */
export class PayloadShapeError extends Error {
  override readonly name = 'PayloadShapeError';
  /** What the operator does about it, when there is more to say than the message. @defaultValue none */
  readonly fix?: string;

  constructor(message: string, fix?: string) {
    super(message);
    if (fix !== undefined) this.fix = fix;
  }
}

/**
 * The longest `next_cursor` a walk sends back, in bytes as it goes into the URL. A cursor rides
 * in the query string of the next request and is stored in every checkpoint: common servers and
 * proxies refuse a request line or header block over 8 KiB (nginx's and Apache's defaults; Node's
 * whole header limit is 16 KiB) with 414 or 431, so a longer cursor, once stored, would fail every
 * later run. Real cursors are a few hundred bytes at most.
 */
export const MAX_CURSOR_BYTES = 8 * 1024;

function cursorBytes(cursor: string): number {
  // The length alone settles a cursor far past the bound without encoding it.
  return cursor.length > MAX_CURSOR_BYTES ? cursor.length : encodeURIComponent(cursor).length;
}

/** The records array of a page; anything else is a contract break naming the endpoint and key. */
export function recordsOf(payload: JsonObject, descriptor: StreamDescriptor): Json[] {
  const records = payload[descriptor.recordsKey];
  if (!Array.isArray(records)) {
    const found = records === undefined ? 'nothing' : typeof records;
    throw new PayloadShapeError(`GET ${descriptor.path}: expected "${descriptor.recordsKey}" to be an array of records, found ${found}`);
  }
  return records;
}

export function numberField(object: JsonObject | undefined, key: string): number | undefined {
  const value = object?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function stringField(object: JsonObject | undefined, key: string): string | undefined {
  const value = object?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function normalizeAll(context: WalkContext, raws: readonly Json[]): WalkItem[] {
  return raws.map((raw) => ({ raw, result: context.normalize(raw) }));
}

/** Where a v1 list walk is: a cursor to send, and the records consumed from the head so far. */
export interface Place {
  readonly cursor?: string;
  readonly offset: number;
  /** The page size the server was found to cap pages at (see `ListPosition.pageCap`). */
  readonly pageCap?: number;
}

export interface ListPage {
  readonly items: readonly WalkItem[];
  readonly total?: number;
  /** Where the next page starts; on the last page, where a later walk resumes. */
  readonly after: Place;
  /** The list has no more records after this page. */
  readonly done: boolean;
}

type Mode = 'cursor' | 'offset' | 'page';

/**
 * Reads a v1 list page after page from `from` in its paging mode (cursor, offset or page), in
 * whatever order the server lists it. Every page passes the progress guards first: a server
 * that repeats or cycles cursors, answers "more" with an empty page, repeats the previous page
 * (ignores `offset`/`page`) or states a negative `total` stops the walk with a message naming
 * the symptom and the endpoint, before that page moves the position, so nothing loops and the
 * stored position never passes what was stored. A stop that shows the cursor sent was bad (its
 * page is empty, or repeats one already read) also takes back the page that handed out that
 * cursor: its stored place pairs a cursor pointing back with an offset counted forward, and a
 * later offset fallback from that offset would skip records.
 *
 * A server that returns fewer records than asked while saying there are more may cap the page
 * size silently, or may have cut one answer short. Only two such pages in a row (or one matching
 * the cap a walk stored before) make the walk adopt the smaller size; one alone is taken as it
 * is, and the next page asks the configured size again. A walk starts at the configured size
 * wherever that costs no request (cursor and offset paging, and page 1), so a cap the server
 * lifts, or one adopted by mistake, does not outlive the next walk.
 */
export async function* listPages(context: WalkContext, stored: Place): AsyncGenerator<ListPage> {
  const from = withinCursorBound(context, stored);
  const paging = context.descriptor.paging;
  let mode: Mode = paging === 'offset' || paging === 'page' ? paging : from.cursor === undefined && from.offset > 0 ? 'offset' : 'cursor';
  let place = from;
  const configured = context.pageSize;
  let pageCap = from.pageCap !== undefined && from.pageCap < configured ? from.pageCap : undefined;
  // A cap stored by an earlier walk counts as one short page seen: one more confirms it.
  let shortSeen = pageCap;
  // Page numbers count pages of the server's size, so a page walk resuming past page 1 must ask
  // with the stored cap: a probe there would fetch records from elsewhere in the list.
  let size = mode === 'page' && from.offset > 0 && pageCap !== undefined ? pageCap : configured;
  const guard = new ProgressGuard(`GET ${context.descriptor.path}`);
  // The place before the last page yielded: its cursor fetched a page that passed the guards.
  let proven: Place | undefined;
  for (;;) {
    // Page paging asks for the page holding `place.offset`; the records before it there are skipped.
    const pageStart = mode === 'page' ? Math.floor(place.offset / size) * size : place.offset;
    const query =
      mode === 'cursor'
        ? { limit: size, cursor: place.cursor }
        : mode === 'offset'
          ? { limit: size, offset: place.offset }
          : { page: pageStart / size + 1, per_page: size };
    let payload: JsonObject;
    try {
      payload = await context.fetch(query);
    } catch (error) {
      if (mode !== 'cursor' || place.cursor === undefined || !isRejectedCursor(error)) throw error;
      // An expired or rejected cursor: go on by offset one page before the stored count. Records
      // only ever move away from the head in either order, so this repeats a page, never skips.
      const resumeAt = Math.max(0, place.offset - context.pageSize);
      context.warn(`${context.descriptor.path}: stored cursor rejected (${String((error as Error).message)}); resuming by offset from ${resumeAt}`);
      mode = 'offset';
      place = { offset: resumeAt, pageCap };
      // The overlap page repeats records on purpose.
      guard.forgetPages();
      continue;
    }
    const raws = recordsOf(payload, context.descriptor);
    const consumed = pageStart + raws.length;
    const items = normalizeAll(context, raws.slice(place.offset - pageStart));
    const total = guard.total(numberField(payload, 'total'));
    const hasMore = payload.has_more === true;
    const next = stringField(payload, 'next_cursor');
    if (next !== undefined && cursorBytes(next) > MAX_CURSOR_BYTES) throw oversizedCursor(context, cursorBytes(next));
    const more = mode === 'cursor' ? hasMore : hasMore || (total !== undefined ? consumed < total : raws.length >= size);
    const sent = mode === 'cursor' ? place.cursor : undefined;
    const short = more && raws.length > 0 && raws.length < size;
    // Past page 1 a short page's records may not be where its page number says: it is asked again
    // (before the guards, which would take the repeat for a cycle) to tell a cap from a cut answer.
    if (short && shortSeen === undefined && mode === 'page' && pageStart > 0) {
      shortSeen = raws.length;
      continue;
    }
    try {
      guard.check({ items, records: raws.length, full: raws.length >= size, more, sent, next: more ? next : undefined });
    } catch (error) {
      if (error instanceof BadCursorStop && sent !== undefined && proven !== undefined) yield { items: [], total, after: proven, done: false };
      throw error;
    }
    if (short && shortSeen !== undefined) {
      if (pageCap !== raws.length) {
        context.warn(
          `${context.descriptor.path}: asked for ${size} records, got ${raws.length} with more to come, twice in a row; the server caps the page size, going on with ${raws.length}`,
        );
      }
      size = raws.length;
      pageCap = size;
      shortSeen = size;
      // Page numbers count pages of the server's size: past page 1 this page is not where we
      // thought it was, so it is asked for again with the right number.
      if (mode === 'page' && pageStart > 0) continue;
    } else if (short) {
      shortSeen = raws.length;
    } else if (raws.length >= size) {
      shortSeen = undefined;
      // A full page of the configured size: whatever cap was stored, the server no longer has it.
      if (size === configured) pageCap = undefined;
    }
    proven = place;
    // A cursor's offset never counts past the list's `total`: a position stored before cursor
    // and offset were kept in step (offset counted ahead) comes back in step at the end of a walk.
    const upTo = (offset: number): number => (total === undefined ? offset : Math.min(offset, total));
    // Without a next cursor on the last page, the cursor just sent is where a later walk resumes:
    // with the offset where that page began, so both say the same place (the page is read again).
    place =
      mode !== 'cursor'
        ? { offset: consumed, pageCap }
        : next !== undefined
          ? { cursor: next, offset: upTo(consumed), pageCap }
          : more || place.cursor === undefined
            ? { offset: consumed, pageCap }
            : { cursor: place.cursor, offset: upTo(place.offset + raws.length) - raws.length, pageCap };
    yield { items, total, after: place, done: !more };
    if (!more) return;
    // `has_more` without a cursor: an instance without cursor support; go on by offset.
    if (mode === 'cursor' && next === undefined) mode = 'offset';
  }
}

/**
 * The stream stops at a cursor too long to send back: the page that brought it is not stored,
 * so the position stays at the last good page and the next run starts from there.
 */
function oversizedCursor(context: WalkContext, bytes: number): PayloadShapeError {
  return new PayloadShapeError(
    `stream "${context.descriptor.name}": GET ${context.descriptor.path} sent a next_cursor of ${bytes} bytes, over the ${MAX_CURSOR_BYTES} a cursor may have; ` +
      'it was not stored, and the position stays at the last good page',
    `the upstream's cursors are too long to send back in a URL: report it to the upstream provider; the next run resumes from the last good page`,
  );
}

/** A stored cursor past the bound (stored before there was one) is dropped: the walk resumes by offset. */
function withinCursorBound(context: WalkContext, from: Place): Place {
  if (from.cursor === undefined || cursorBytes(from.cursor) <= MAX_CURSOR_BYTES) return from;
  context.warn(
    `${context.descriptor.path}: the stored cursor is ${cursorBytes(from.cursor)} bytes, over the ${MAX_CURSOR_BYTES} a cursor may have; resuming by offset from ${from.offset}`,
  );
  return { offset: from.offset, pageCap: from.pageCap };
}

function isRejectedCursor(error: unknown): boolean {
  return isUpstreamError(error) && error.status === 400;
}

function idsOf(items: readonly WalkItem[]): string[] {
  const ids: string[] = [];
  for (const item of items) if (item.result.ok) ids.push(item.result.id);
  return ids;
}

/** The progress guards of one walk; each violation is a `PayloadShapeError` (the stream stops). */
class ProgressGuard {
  readonly #endpoint: string;
  readonly #cursors = new Set<string>();
  #previousIds = new Set<string>();
  /** Every page of the walk by its records (count, first and last id): a few bytes a page. */
  readonly #pages = new Map<string, number>();

  constructor(endpoint: string) {
    this.#endpoint = endpoint;
  }

  forgetPages(): void {
    this.#previousIds = new Set();
    this.#pages.clear();
  }

  total(total: number | undefined): number | undefined {
    if (total !== undefined && (total < 0 || !Number.isSafeInteger(total))) this.#stop(`"total" is ${total}, not a count of records`);
    return total;
  }

  check(page: { items: readonly WalkItem[]; records: number; full: boolean; more: boolean; sent: string | undefined; next: string | undefined }): void {
    if (page.more && page.records === 0) this.#stop('the server says there are more records but sent an empty page', true);
    if (page.sent !== undefined) this.#cursors.add(page.sent);
    if (page.next !== undefined && page.next === page.sent) this.#stop(`next_cursor repeats the cursor just sent (${short(page.next)})`);
    if (page.next !== undefined && this.#cursors.has(page.next))
      this.#stop(`next_cursor ${short(page.next)} was already used in this walk (the cursors cycle)`);
    const ids = idsOf(page.items);
    // Only a full page counts: a short one at the end of a newest-first list may repeat records
    // that arrivals pushed down, which is harmless.
    if (page.full && ids.length > 0 && ids.every((id) => this.#previousIds.has(id))) {
      this.#stop('the page holds only records of the previous page (the server ignores offset/page or the cursor)', true);
    }
    this.#previousIds = new Set(ids);
    // Opaque cursors may be minted afresh for the same place, so a cycle shows in the records.
    const first = ids[0];
    if (first === undefined) return;
    const key = `${ids.length}\u0000${first}\u0000${ids.at(-1) ?? ''}`;
    const earlier = this.#pages.get(key);
    if (earlier !== undefined) {
      this.#stop(
        `page ${this.#pages.size + 1} repeats page ${earlier} of this walk (the same ${ids.length} records from id ${JSON.stringify(first)}; the cursors cycle or the server ignores offset/page)`,
        true,
      );
    }
    this.#pages.set(key, this.#pages.size + 1);
  }

  /** `badCursor`: the symptom is in the page the sent cursor fetched, so that cursor is not to be trusted. */
  #stop(symptom: string, badCursor = false): never {
    const message = `${this.#endpoint}: ${symptom}; the walk stopped instead of looping, the position stays at the last good page`;
    throw badCursor ? new BadCursorStop(message) : new PayloadShapeError(message);
  }
}

/** A guard stop caused by the page a cursor fetched: the cursor that led there is suspect too. */
class BadCursorStop extends PayloadShapeError {}

function short(cursor: string): string {
  return JSON.stringify(cursor.length > 40 ? `${cursor.slice(0, 40)}…` : cursor);
}

// What the records say about the order of the list

/** Ids kept from the head of a list: enough to recognise it again after a few deletions upstream. */
const HEAD_IDS = 10;

/** The normalized `created_at` of a record (comparable ISO text), when it has one. */
function createdAt(item: WalkItem): string | undefined {
  if (!item.result.ok) return undefined;
  const value = item.result.fields.created_at;
  return typeof value === 'string' ? value : undefined;
}

function idOf(item: WalkItem): string | undefined {
  return item.result.ok ? item.result.id : undefined;
}

/**
 * What the order of a list's records says: `created_at` only ever rising (with at least one
 * rise) is oldest first, only ever falling is newest first; equal timestamps say nothing, and
 * a list that rises and falls is no evidence either way. `before` is the last record of the
 * previous page, so the boundary between pages counts too. `minSteps` asks for that many
 * rises (or falls) before it counts as evidence.
 */
export function orderWithin(items: readonly WalkItem[], before?: WalkItem, minSteps = 1): ListOrder | undefined {
  let rises = 0;
  let falls = 0;
  let previous = before === undefined ? undefined : createdAt(before);
  for (const item of items) {
    const at = createdAt(item);
    if (at === undefined) continue;
    if (previous !== undefined && at > previous) rises += 1;
    if (previous !== undefined && at < previous) falls += 1;
    previous = at;
  }
  if (rises >= minSteps && falls === 0) return 'oldest_first';
  if (falls >= minSteps && rises === 0) return 'newest_first';
  return undefined;
}

/**
 * What the head page of a list says compared with the head stored by an earlier walk: a record
 * newer than anything stored, or the stored head found further down, means records arrived at
 * the head, so the list is newest first. `unchanged`: the head is as it was (nothing arrived
 * there, whatever the order).
 */
export function orderAgainstHead(items: readonly WalkItem[], head: HeadMark): ListOrder | 'unchanged' | undefined {
  const first = items[0];
  if (first === undefined) return undefined;
  if (head.createdAt !== null && items.some((item) => (createdAt(item) ?? '') > (head.createdAt ?? ''))) return 'newest_first';
  if (idOf(first) !== undefined && idOf(first) === head.ids[0]) return 'unchanged';
  const known = new Set(head.ids);
  return items.slice(1).some((item) => known.has(idOf(item) ?? '')) && !known.has(idOf(first) ?? '') ? 'newest_first' : undefined;
}

/**
 * The head of a list as its first page shows it: the newest `created_at` and the first ids.
 * Records dated after `futureFrom` (a clock-skewed upstream) are left out: as the mark they would
 * make every later arrival look older than what is stored. They are listed in `future`.
 */
export function headMarkOf(all: readonly WalkItem[], futureFrom: string): HeadMark | null {
  const future = all
    .filter((item) => (createdAt(item) ?? '') > futureFrom)
    .map(idOf)
    .filter((id): id is string => id !== undefined);
  const items = all.filter((item) => !future.includes(idOf(item) ?? ''));
  const ids = items.map(idOf).filter((id): id is string => id !== undefined);
  if (ids.length === 0) return null;
  let newest: string | null = null;
  for (const item of items) {
    const at = createdAt(item);
    if (at !== undefined && (newest === null || at > newest)) newest = at;
  }
  const atNewest = items.filter((item) => newest !== null && createdAt(item) === newest).map(idOf);
  const kept = [...new Set([...ids.slice(0, HEAD_IDS), ...atNewest.filter((id): id is string => id !== undefined)])];
  return future.length === 0 ? { createdAt: newest, ids: kept } : { createdAt: newest, ids: kept, future: future.slice(0, HEAD_IDS) };
}

/**
 * Whether a page of a newest-first walk has reached records stored before: one of the stored
 * head's ids, or a record older than its newest `created_at`. Everything after such a page is
 * stored already; the rest of the page is the overlap, rewritten idempotently.
 */
export function reachesMark(items: readonly WalkItem[], mark: HeadMark): boolean {
  const known = new Set(mark.ids);
  return items.some((item) => {
    const id = idOf(item);
    if (id !== undefined && known.has(id)) return true;
    const at = createdAt(item);
    return mark.createdAt !== null && at !== undefined && at < mark.createdAt;
  });
}
