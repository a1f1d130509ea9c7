import type { Json, JsonObject } from '../../sink/sink.js';
import { isUpstreamError, type UpstreamResponse } from '../upstream/index.js';
import type { StreamDescriptor } from '../streams/stream-descriptor.js';
import type { Query, WalkContext } from './walker.js';

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
const MAX_CURSOR_BYTES = 8 * 1024;

function cursorBytes(cursor: string): number {
  // The length alone settles a cursor far past the bound without encoding it.
  return cursor.length > MAX_CURSOR_BYTES ? cursor.length : encodeURIComponent(cursor).length;
}

/** One page of the walk's endpoint: one request through the business's client, under the run's rules. */
export function fetchPage(context: WalkContext, query: Query): Promise<UpstreamResponse> {
  return context.client.get(context.descriptor.api, context.descriptor.path, query, context.rules);
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

function numberField(object: JsonObject | undefined, key: string): number | undefined {
  const value = object?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function stringField(object: JsonObject | undefined, key: string): string | undefined {
  const value = object?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * What a walk reads of a page's records, in page order: each one's id and `created_at` as
 * normalizing gives them (the stream's key readers), undefined where it has none. Read once per
 * page; the engine normalizes the records after the walk has yielded them.
 */
export interface PageKeys {
  readonly ids: readonly (string | undefined)[];
  readonly createdAt: readonly (string | undefined)[];
}

function pageKeys(context: WalkContext, records: readonly Json[]): PageKeys {
  const { keys } = context.descriptor;
  const ids: (string | undefined)[] = new Array<string | undefined>(records.length);
  const createdAt: (string | undefined)[] = new Array<string | undefined>(records.length);
  for (let index = 0; index < records.length; index++) {
    const raw = records[index] as Json;
    ids[index] = keys.id(raw);
    createdAt[index] = keys.createdAt(raw, context.normalizeContext);
  }
  return { ids, createdAt };
}

/** Where a v1 list walk is: a cursor to send, and the records consumed from the head so far. */
export interface Place {
  readonly cursor?: string;
  readonly offset: number;
  /** The page size the server was found to cap pages at (see `ListPosition.pageCap`). */
  readonly pageCap?: number;
}

export interface ListPage {
  readonly records: readonly Json[];
  readonly keys: PageKeys;
  readonly total?: number;
  /** The answer was not valid UTF-8 (see `WalkPage.replacedUtf8`). */
  readonly replacedUtf8: boolean;
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
    let answer: UpstreamResponse;
    try {
      answer = await fetchPage(context, query);
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
    const { payload, replacedUtf8 } = answer;
    const raws = recordsOf(payload, context.descriptor);
    const consumed = pageStart + raws.length;
    const records = place.offset > pageStart ? raws.slice(place.offset - pageStart) : raws;
    const keys = pageKeys(context, records);
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
      guard.check({ ids: keys.ids, records: raws.length, full: raws.length >= size, more, sent, next: more ? next : undefined });
    } catch (error) {
      if (error instanceof BadCursorStop && sent !== undefined && proven !== undefined)
        yield { records: [], keys: NO_KEYS, total, after: proven, done: false, replacedUtf8: false };
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
    yield { records, keys, total, after: place, done: !more, replacedUtf8 };
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

const NO_KEYS: PageKeys = Object.freeze({ ids: [], createdAt: [] });

function known(ids: readonly (string | undefined)[]): string[] {
  const found: string[] = [];
  for (const id of ids) if (id !== undefined) found.push(id);
  return found;
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

  check(page: {
    ids: readonly (string | undefined)[];
    records: number;
    full: boolean;
    more: boolean;
    sent: string | undefined;
    next: string | undefined;
  }): void {
    if (page.more && page.records === 0) this.#stop('the server says there are more records but sent an empty page', true);
    if (page.sent !== undefined) this.#cursors.add(page.sent);
    if (page.next !== undefined && page.next === page.sent) this.#stop(`next_cursor repeats the cursor just sent (${short(page.next)})`);
    if (page.next !== undefined && this.#cursors.has(page.next))
      this.#stop(`next_cursor ${short(page.next)} was already used in this walk (the cursors cycle)`);
    const ids = known(page.ids);
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
