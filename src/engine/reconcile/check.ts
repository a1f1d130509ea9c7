import { storedIdPages, type Json, type JsonObject, type Sink } from '../../sink/sink.js';
import type { Source } from '../../source/source.js';
import type { PagingMode, StreamDescriptor } from '../../source/streams/stream-descriptor.js';
import type { Query } from '../../source/walkers/index.js';

/**
 * Is the mirror complete, by counts: what the sink accounts for against upstream's `total`, and
 * the words every reader of a check (log, status, the reconcile command) uses. The id-level walk
 * that repairs is `repair.ts`.
 */

/**
 * What reconciliation found for one business × stream. `difference` is upstream minus stored:
 * positive when records are missing from the sink, negative when the sink holds records upstream
 * no longer lists.
 */
export interface StreamCheck {
  readonly business: string;
  readonly stream: string;
  /** Records stored and not marked deleted, plus dead letters (records upstream has that could not be stored). */
  readonly stored: number;
  /** What upstream says it has (`total`); null for a stream whose API gives no total (v2). */
  readonly upstream: number | null;
  readonly difference: number | null;
  /** `not_verifiable`: upstream gives no total, so nothing can be said; never reported as ok. */
  readonly verdict: 'ok' | 'differs' | 'not_verifiable';
  /** After an id-level walk: ids upstream lists that the sink lacked, and stored ids upstream no longer lists. */
  readonly missing?: number;
  readonly extra?: number;
  /** After a repair: records written and records marked deleted. */
  readonly written?: number;
  readonly markedDeleted?: number;
  /** After a whole walk: deletions the guard held back because they were too many (`--confirm-deletions` marks them). */
  readonly heldDeletions?: HeldDeletions;
  /** After a whole walk: records it missed that wait for a second whole walk (`reconcile.deleteAfter`). */
  readonly pendingDeletions?: number;
}

/** Deletions a whole walk found too many to mark: how many and what share of the stream. */
export interface HeldDeletions {
  readonly count: number;
  /** `count` over the records stored and not deleted when the walk began (0–1). */
  readonly share: number;
}

/** Compares the counts; a stream without an upstream total is not verifiable. */
export function judge(business: string, stream: string, stored: number, upstream: number | null): StreamCheck {
  if (upstream === null) return { business, stream, stored, upstream, difference: null, verdict: 'not_verifiable' };
  const difference = upstream - stored;
  return { business, stream, stored, upstream, difference, verdict: difference === 0 ? 'ok' : 'differs' };
}

/** `66.7 %`: one decimal, enough to compare with `maxDeleteShare`. */
function formatShare(share: number): string {
  return `${(Math.round(share * 1000) / 10).toFixed(1)} %`;
}

/** The words that mark a drift whose deletions the guard held back; the status fix looks for them. */
export const HELD_DELETIONS = 'records would be marked deleted';

/** What the status page, `callsync status` and the reconcile output say about held deletions. */
export function heldMessage(held: HeldDeletions): string {
  return `${held.count} ${HELD_DELETIONS} (${formatShare(held.share)}); confirm with \`callsync reconcile --repair --confirm-deletions\``;
}

/** One line for logs and status: what differs and by how much. */
export function describeDrift(check: StreamCheck): string {
  if (check.verdict !== 'differs' || check.difference === null) return `${check.business}/${check.stream}: ${check.verdict}`;
  const side = check.difference > 0 ? `${check.difference} missing from the sink` : `${-check.difference} stored that upstream no longer lists`;
  const drift = `drift: upstream has ${check.upstream}, the sink ${check.stored} (${side})`;
  return check.heldDeletions === undefined ? drift : `${heldMessage(check.heldDeletions)}; ${drift}`;
}

/**
 * The cheapest request that carries `total` for each v1 paging mode (one record asked for); a
 * full-list endpoint (`none`) is read whole. v2 lists carry no total: absent.
 */
const TOTAL_QUERY: Readonly<Partial<Record<PagingMode, Query>>> = {
  cursor: { limit: 1 },
  offset: { limit: 1, offset: 0 },
  page: { page: 1, per_page: 1 },
  none: {},
};

/** True when upstream can say how many records the stream has. */
export function isVerifiable(descriptor: StreamDescriptor): boolean {
  return descriptor.api === 'v1' && TOTAL_QUERY[descriptor.paging] !== undefined;
}

/** `total` of a payload when it is a count (a non-negative integer); anything else says nothing. */
function totalOf(payload: JsonObject): number | undefined {
  const total = payload.total;
  return typeof total === 'number' && Number.isSafeInteger(total) && total >= 0 ? total : undefined;
}

/**
 * Asks upstream how many records the stream has (one request, within the business's budget).
 * @returns null for a stream that cannot say (v2, or a payload without a usable total)
 */
async function upstreamTotal(source: Pick<Source, 'descriptor' | 'fetch'>): Promise<number | null> {
  const { descriptor } = source;
  const query = descriptor.api === 'v1' ? TOTAL_QUERY[descriptor.paging] : undefined;
  if (query === undefined) return null;
  return totalOf(await source.fetch(query)) ?? null;
}

/**
 * The upstream id of a raw record (`id`, as the v1 API names it), for records that could not be
 * normalized: a dead letter, or a stored record whose newer version fails, must not be taken for missing or deleted.
 */
export function rawId(raw: Json): string | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const id = raw.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** Dead letters read per stream; they are rare, and more than this many means a stream needs an operator anyway. */
const DEAD_LETTER_READ = 100_000;

/** Upstream ids of the stream's dead letters: records upstream has that could not be stored. */
async function deadLetterIds(sink: Sink, businessId: string, descriptor: StreamDescriptor): Promise<Set<string>> {
  const letters = await sink.deadLetters.list({ businessId, stream: descriptor.name, limit: DEAD_LETTER_READ });
  return new Set(letters.flatMap((letter) => rawId(letter.raw) ?? []));
}

/**
 * What the sink accounts for: stored rows plus dead letters whose record is not stored (a record
 * that could not be stored is known, not missing; one stored since must not count twice).
 * @param counted the rows already counted, to save a query
 */
export async function accountedCount(sink: Sink, businessId: string, descriptor: StreamDescriptor, counted?: number): Promise<number> {
  const [rows, dead] = await Promise.all([counted ?? sink.records.count(businessId, descriptor.table), deadLetterIds(sink, businessId, descriptor)]);
  if (dead.size === 0) return rows;
  // Stored ids stream past the dead letters instead of being held: memory stays bounded by the
  // dead letters, not by the stream (1M stored ids held as a Set are about 75 MB of heap).
  for await (const page of storedIdPages(sink.records, businessId, descriptor.table)) for (const id of page) dead.delete(id);
  return rows + dead.size;
}

interface CheckStreamOptions {
  readonly business: string;
  /** The stream, and its one request for the count (within the business's budget). */
  readonly source: Pick<Source, 'descriptor' | 'fetch'>;
  readonly sink: Sink;
  /** Upstream's total when it is already known (the last page of a run carried it): no request. */
  readonly knownTotal?: number;
}

/** Compares what the sink accounts for with upstream's `total`: one request at most, none when the total is known. */
export async function checkStream(options: CheckStreamOptions): Promise<StreamCheck> {
  const { business, sink, source } = options;
  const { descriptor } = source;
  const upstream = !isVerifiable(descriptor) ? null : (options.knownTotal ?? (await upstreamTotal(source)));
  // Rows alone matching is the common case after every run: the dead letters need not be read.
  const rows = await sink.records.count(business, descriptor.table);
  const stored = rows === upstream ? rows : await accountedCount(sink, business, descriptor, rows);
  return judge(business, descriptor.name, stored, upstream);
}
