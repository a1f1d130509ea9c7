import { z } from 'zod';
import { chunks } from '../../base/chunks.js';
import type { NormalizeContext } from '../../normalize/index.js';
import { storedIdPages, type JsonObject, type Sink, type SyncRecord } from '../../sink/sink.js';
import type { Source } from '../../source/source.js';
import type { StreamDescriptor } from '../../source/streams/stream-descriptor.js';
import { accountedCount, checkStream, heldMessage, isVerifiable, judge, rawId, type HeldDeletions, type StreamCheck } from './check.js';

/**
 * The id-level walk that repairs a stream, and the deletion guard that decides what it may mark
 * deleted. One answer from upstream proves little (an outage that answers 200 with a short list
 * looks exactly like deletions), so a walk that would mark a large part of a stream marks nothing
 * until a person confirms, and a smaller set is marked only when a second whole walk, `afterMs`
 * later, misses the same records. Both keep their memory as sink checkpoints beside the stream's
 * own: the walk's position (`{stream}:repair`) and the guard's candidates (`{stream}:deletions`).
 */

/** The limits of one repair, from `reconcile.*` and the command line. */
export interface DeletionGuard {
  /** Largest share (0–1) of the stream's stored records one walk may mark without confirmation. @defaultValue 0.1 */
  readonly maxShare: number;
  /** Largest number of records one walk may mark without confirmation; none when undefined. */
  readonly maxCount?: number;
  /** How far apart the two whole walks that both missed a record must be. @defaultValue 1 h */
  readonly afterMs: number;
  /** The operator confirmed (`--confirm-deletions`): everything the whole walk missed is marked now. */
  readonly confirmed: boolean;
}

/** The guard of the `reconcile` config section; `confirmed` comes from `--confirm-deletions`. */
export function deletionGuard(
  settings: { readonly maxDeleteShare: number; readonly maxDeleteCount?: number; readonly deleteAfter: number },
  confirmed = false,
): DeletionGuard {
  return { maxShare: settings.maxDeleteShare, maxCount: settings.maxDeleteCount, afterMs: settings.deleteAfter, confirmed };
}

/**
 * What the guard keeps between walks: records a whole walk missed, each with the time it was
 * first missed (ms), and the last walk's held deletions.
 */
export interface DeletionState {
  readonly candidates: ReadonlyMap<string, number>;
  readonly held: HeldDeletions | null;
}

const NO_DELETIONS: DeletionState = Object.freeze({ candidates: new Map<string, number>(), held: null });

/** What a whole walk does about the stored records it did not see. */
type DeletionDecision =
  | { readonly kind: 'held'; readonly held: HeldDeletions }
  | {
      readonly kind: 'mark';
      /** Marked now: confirmed, or missed by a walk at least `afterMs` before this one too. */
      readonly due: readonly string[];
      /** Missed for the first time (or too recently): kept for the next whole walk. */
      readonly candidates: ReadonlyMap<string, number>;
    };

/**
 * Decides for one whole walk. `extra` are the stored ids it did not see, `storedCount` the records
 * stored and not deleted when it began, `previous` the candidates of earlier walks (any not in
 * `extra` was seen again and is dropped).
 */
function decideDeletions(
  extra: readonly string[],
  storedCount: number,
  previous: ReadonlyMap<string, number>,
  guard: DeletionGuard,
  nowMs: number,
): DeletionDecision {
  if (guard.confirmed) return { kind: 'mark', due: extra, candidates: new Map() };
  const share = storedCount === 0 ? 0 : extra.length / storedCount;
  if (share > guard.maxShare || (guard.maxCount !== undefined && extra.length > guard.maxCount)) {
    return { kind: 'held', held: { count: extra.length, share } };
  }
  const due: string[] = [];
  const candidates = new Map<string, number>();
  for (const id of extra) {
    const since = previous.get(id);
    if (since !== undefined && nowMs - since >= guard.afterMs) due.push(id);
    else candidates.set(id, since ?? nowMs);
  }
  return { kind: 'mark', due, candidates };
}

/** What they say about candidates waiting for the second whole walk. */
function pendingMessage(count: number, dueAtMs: number): string {
  return `${count} records upstream no longer lists are marked deleted by a whole walk from ${new Date(dueAtMs).toISOString()} on (reconcile.deleteAfter), unless upstream lists them again; \`callsync reconcile --repair --confirm-deletions\` marks them now`;
}

/**
 * The guard's memory as a checkpoint position. Candidates are grouped by the time a walk first
 * missed them: one walk adds one group, so the ids are stored once and the times once per walk.
 */
const deletionsPosition = z.object({
  groups: z.array(z.object({ since: z.number(), ids: z.array(z.string()) })),
  held: z.object({ count: z.int().nonnegative(), share: z.number().min(0) }).nullable(),
});

const deletionsStream = (stream: string): string => `${stream}:deletions`;
const repairWalkStream = (stream: string): string => `${stream}:repair`;

export function encodeDeletions(state: DeletionState): JsonObject {
  const groups = new Map<number, string[]>();
  for (const [id, since] of state.candidates) {
    const group = groups.get(since);
    if (group === undefined) groups.set(since, [id]);
    else group.push(id);
  }
  return {
    groups: [...groups].map(([since, ids]) => ({ since, ids })),
    held: state.held === null ? null : { count: state.held.count, share: state.held.share },
  };
}

/**
 * Reads a stored position; one that does not parse names the checkpoint, since guessing would
 * either forget candidates (delaying a deletion) or invent them.
 */
export function decodeDeletions(position: JsonObject | undefined, where: string): DeletionState {
  if (position === undefined) return NO_DELETIONS;
  const parsed = deletionsPosition.safeParse(position);
  if (!parsed.success) {
    throw new Error(
      `sync_state row ${where} does not parse (${parsed.error.issues[0]?.message ?? 'unknown shape'}); fix: delete that row, and the next whole walk starts the deletion candidates afresh`,
    );
  }
  const candidates = new Map<string, number>();
  for (const group of parsed.data.groups) for (const id of group.ids) candidates.set(id, group.since);
  return { candidates, held: parsed.data.held };
}

/** The guard's memory for one business × stream: candidates of earlier whole walks and the last held deletions. */
export async function loadDeletions(sink: Sink, businessId: string, descriptor: StreamDescriptor): Promise<DeletionState> {
  const stream = deletionsStream(descriptor.name);
  return decodeDeletions((await sink.checkpoints.load(businessId, stream))?.position, `${businessId}/${stream}`);
}

/** Where an unfinished repair walk stopped (a walker position), or undefined. */
export async function loadRepairWalk(sink: Sink, businessId: string, descriptor: StreamDescriptor): Promise<JsonObject | undefined> {
  const walk = (await sink.checkpoints.load(businessId, repairWalkStream(descriptor.name)))?.position.walk;
  return walk !== null && typeof walk === 'object' && !Array.isArray(walk) ? walk : undefined;
}

/**
 * Stores records with the stream's current position, so a repair never moves where the next sync
 * starts. A stream that never synced has no position yet, and its first sync fetches everything,
 * so nothing is stored for it here. Resolves with how many were written.
 */
async function storeMissing(sink: Sink, businessId: string, descriptor: StreamDescriptor, records: readonly SyncRecord[]): Promise<number> {
  const checkpoint = await sink.checkpoints.load(businessId, descriptor.name);
  if (checkpoint === undefined) return 0;
  let written = 0;
  for (const part of chunks(records, sink.capabilities.maxBatchSize)) {
    written += (await sink.write({ businessId, table: descriptor.table, records: part, deadLetters: [] }, checkpoint.position)).written;
  }
  return written;
}

interface RepairStreamOptions {
  readonly business: string;
  /** The stream's pages and its count, through the business's client and budget. */
  readonly source: Source;
  readonly sink: Sink;
  readonly normalizeContext: NormalizeContext;
  /** False: only count what is missing and extra, change nothing. */
  readonly repair: boolean;
  /** What the walk may mark deleted. */
  readonly guard: DeletionGuard;
  readonly signal?: AbortSignal;
  /** The clock the two-walks rule reads. @defaultValue Date.now */
  readonly now?: () => number;
  readonly onWarning?: (message: string) => void;
}

const MARK_CHUNK = 500;

/**
 * Walks the whole upstream list from its start and compares ids with the sink: records upstream
 * lists that the sink lacks are stored as the walk goes, and the walk's position is checkpointed
 * after every page, so a cut-off repair resumes where it stopped. The walk asks through the
 * stream's source, so it spends the business's own budget. Stored records upstream no longer lists are marked
 * deleted only with proof: the walk saw the whole list (the ids it saw match the `total` upstream
 * reported at its end, and it was not resumed), and the deletion guard lets them through (too
 * many are held until confirmed; fewer are marked once a second whole walk, `guard.afterMs`
 * later, missed them too). Otherwise nothing is marked and a warning says why.
 */
export async function repairStream(options: RepairStreamOptions): Promise<StreamCheck> {
  const { business, source, sink, normalizeContext } = options;
  const { descriptor } = source;
  // One entry per stored id, flagged once the walk sees it, and a set of the ids upstream lists
  // that are not stored: the walk holds each id once (1M stored ids: about 85 MB of heap, where a
  // set of stored ids beside a set of ids seen held both, about 150 MB).
  const stored = new Map<string, boolean>();
  for await (const page of storedIdPages(sink.records, business, descriptor.table)) for (const id of page) stored.set(id, false);
  const unstored = new Set<string>();
  let seenStored = 0;
  let missing = 0;
  let written = 0;
  let total: number | undefined;
  const resumedFrom = options.repair ? await loadRepairWalk(sink, business, descriptor) : undefined;
  const walk = source.pages(resumedFrom, { warn: (message) => options.onWarning?.(message), revisit: false });
  const saveWalk = (position: JsonObject | null): Promise<void> =>
    sink.checkpoints.save({ businessId: business, stream: repairWalkStream(descriptor.name), position: { walk: position }, recordsSynced: 0 });
  for await (const page of walk) {
    const records: SyncRecord[] = [];
    for (const raw of page.records) {
      const result = descriptor.normalize(raw, normalizeContext);
      const id = result.ok ? result.id : rawId(raw);
      if (id === undefined) continue;
      const seenBefore = stored.get(id);
      if (seenBefore !== undefined) {
        if (!seenBefore) seenStored += 1;
        stored.set(id, true);
        continue;
      }
      if (unstored.has(id)) continue;
      unstored.add(id);
      if (result.ok) records.push({ businessId: business, id: result.id, source: descriptor.source, fields: result.fields, raw });
    }
    missing += records.length;
    if (options.repair && records.length > 0) written += await storeMissing(sink, business, descriptor, records);
    if (options.repair) await saveWalk(page.position);
    if (page.total !== undefined) total = page.total;
    if (options.signal?.aborted) {
      await walk.return(undefined);
      break;
    }
  }
  const finished = options.signal?.aborted !== true;
  if (options.repair && finished) await saveWalk(null);
  // Read off the map in place: spreading a million entries into pairs first would double the walk's peak heap.
  const extra: string[] = [];
  for (const [id, seen] of stored) if (!seen) extra.push(id);
  const seenCount = seenStored + unstored.size;
  const complete = finished && resumedFrom === undefined && total !== undefined && seenCount === total;
  let deletions: Deletions = { markedDeleted: 0 };
  if (options.repair && finished) {
    if (!complete && extra.length > 0) {
      options.onWarning?.(
        resumedFrom !== undefined
          ? `this repair resumed a walk cut off before; records missing are stored, but marking deletions needs one whole walk: run the repair again`
          : `${extra.length} stored record(s) were not seen upstream, but the walk saw ${seenCount} record(s) where upstream reported ${total ?? 'no total'}: none marked deleted`,
      );
    }
    deletions = await guardDeletions(options, stored, complete ? extra : undefined);
  }
  const { markedDeleted } = deletions;
  const after = await accountedCount(sink, business, descriptor);
  const check = judge(business, descriptor.name, after, isVerifiable(descriptor) ? (total ?? null) : null);
  // Counts can agree by accident (one missing, one extra); what the ids showed and was left unfixed still differs.
  const unresolved = missing - written + (extra.length - markedDeleted) > 0;
  const verdict = check.verdict === 'ok' && unresolved ? 'differs' : check.verdict;
  const guarded = {
    ...(deletions.held === undefined ? {} : { heldDeletions: deletions.held }),
    ...(deletions.pending === undefined ? {} : { pendingDeletions: deletions.pending }),
  };
  return { ...check, verdict, missing, extra: extra.length, written, markedDeleted, ...guarded };
}

interface Deletions {
  readonly markedDeleted: number;
  readonly held?: HeldDeletions;
  readonly pending?: number;
}

/**
 * Applies the deletion guard after a walk that ran to its end. `extra` (the stored ids it did not
 * see) is given only when the walk was whole; any walk drops the candidates it saw again.
 */
async function guardDeletions(options: RepairStreamOptions, stored: ReadonlyMap<string, boolean>, extra: readonly string[] | undefined): Promise<Deletions> {
  const { business, sink, guard } = options;
  const { descriptor } = options.source;
  const previous = await loadDeletions(sink, business, descriptor);
  // A candidate stays only while it is stored, not deleted, and unseen; its first-missed time is kept.
  const unseen = new Map([...previous.candidates].filter(([id]) => stored.get(id) === false));
  let next: DeletionState = { candidates: unseen, held: previous.held };
  let result: Deletions = { markedDeleted: 0 };
  if (extra !== undefined) {
    const nowMs = options.now?.() ?? Date.now();
    const decision = decideDeletions(extra, stored.size, unseen, guard, nowMs);
    if (decision.kind === 'held') {
      options.onWarning?.(heldMessage(decision.held));
      next = { candidates: unseen, held: decision.held };
      result = { markedDeleted: 0, held: decision.held };
    } else {
      let markedDeleted = 0;
      for (const part of chunks(decision.due, MARK_CHUNK)) markedDeleted += await sink.records.markDeleted(business, descriptor.table, part);
      const pending = decision.candidates.size;
      if (pending > 0) options.onWarning?.(pendingMessage(pending, earliest(decision.candidates.values()) + guard.afterMs));
      next = { candidates: decision.candidates, held: null };
      result = { markedDeleted, ...(pending > 0 ? { pending } : {}) };
    }
  }
  const hadAny = previous.candidates.size > 0 || previous.held !== null;
  if (hadAny || next.candidates.size > 0 || next.held !== null) {
    await sink.checkpoints.save({ businessId: business, stream: deletionsStream(descriptor.name), position: encodeDeletions(next), recordsSynced: 0 });
  }
  return result;
}

/** The smallest of many numbers, without spreading them into one call (100k arguments overflow the stack). */
function earliest(values: Iterable<number>): number {
  let least = Number.POSITIVE_INFINITY;
  for (const value of values) if (value < least) least = value;
  return least;
}

interface ReconcileStreamOptions extends Omit<RepairStreamOptions, 'repair'> {
  /**
   * `count`: compare counts only (at most one request); `walk`: also compare ids over the whole
   * list, whatever the counts say; `repair`: walk and fix what the ids show.
   */
  readonly mode: 'count' | 'walk' | 'repair';
  /** Upstream's total when already known (the last page of a run carried it). */
  readonly knownTotal?: number;
}

/**
 * Reconciles one business × stream. Streams without an upstream count (v2) are reported as not
 * verifiable and never walked: without a count, no walk can prove a record was deleted.
 */
export async function reconcileStream(options: ReconcileStreamOptions): Promise<StreamCheck> {
  if (options.mode === 'count' || !isVerifiable(options.source.descriptor)) return checkStream(options);
  return repairStream({ ...options, repair: options.mode === 'repair' });
}
