import type { NormalizeContext } from '../normalize/index.js';
import type { JsonObject } from '../sink.js';
import type { StreamDescriptor } from '../sync/stream-descriptor.js';
import { toPageRecords } from '../sync/to-batch.js';
import { walkers, type Query, type WalkSettings } from '../sync/walkers/index.js';
import { decideDeletions, heldMessage, pendingMessage, type DeletionGuard, type DeletionState, type HeldDeletions } from './deletion-guard.js';
import { accountedCount, rawId, type ReconcileStore } from './reconcile-store.js';
import { judge, type StreamCheck } from './stream-check.js';
import { isVerifiable } from './upstream-total.js';

export interface RepairStreamOptions {
  readonly business: string;
  readonly descriptor: StreamDescriptor;
  readonly store: ReconcileStore;
  readonly fetch: (query: Query) => Promise<JsonObject>;
  readonly normalizeContext: NormalizeContext;
  readonly paging: WalkSettings;
  /** False: only count what is missing and extra, change nothing. */
  readonly repair: boolean;
  /** What the walk may mark deleted (see `deletion-guard.ts`). */
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
 * after every page, so a cut-off repair resumes where it stopped. The walk asks through `fetch`,
 * so it spends the business's own budget. Stored records upstream no longer lists are marked
 * deleted only with proof: the walk saw the whole list (the ids it saw match the `total` upstream
 * reported at its end, and it was not resumed), and the deletion guard lets them through (too
 * many are held until confirmed; fewer are marked once a second whole walk, `guard.afterMs`
 * later, missed them too). Otherwise nothing is marked and a warning says why.
 */
export async function repairStream(options: RepairStreamOptions): Promise<StreamCheck> {
  const { business, descriptor, store } = options;
  // One entry per stored id, flagged once the walk sees it, and a set of the ids upstream lists
  // that are not stored: the walk holds each id once (1M stored ids: about 85 MB of heap, where a
  // set of stored ids beside a set of ids seen held both, about 150 MB).
  const stored = new Map<string, boolean>();
  for await (const page of store.ids(business, descriptor)) for (const id of page) stored.set(id, false);
  const unstored = new Set<string>();
  let seenStored = 0;
  let missing = 0;
  let written = 0;
  let total: number | undefined;
  const resumedFrom = options.repair ? await store.loadRepairWalk(business, descriptor) : undefined;
  const walk = walkers[descriptor.paging](
    {
      descriptor,
      ...options.paging,
      fetch: options.fetch,
      normalize: (raw) => descriptor.normalize(raw, options.normalizeContext),
      warn: (message) => options.onWarning?.(message),
    },
    resumedFrom,
  );
  for await (const page of walk) {
    const fresh = page.items.filter((item) => {
      const id = item.result.ok ? item.result.id : rawId(item.raw);
      if (id === undefined) return false;
      const seenBefore = stored.get(id);
      if (seenBefore !== undefined) {
        if (!seenBefore) seenStored += 1;
        stored.set(id, true);
        return false;
      }
      if (unstored.has(id)) return false;
      unstored.add(id);
      return item.result.ok;
    });
    const { records } = toPageRecords(business, descriptor.name, descriptor.source, fresh);
    missing += records.length;
    if (options.repair && records.length > 0) written += await store.store(business, descriptor, records);
    if (options.repair) await store.saveRepairWalk(business, descriptor, page.position);
    if (page.total !== undefined) total = page.total;
    if (options.signal?.aborted) {
      await walk.return(undefined);
      break;
    }
  }
  const finished = options.signal?.aborted !== true;
  if (options.repair && finished) await store.saveRepairWalk(business, descriptor, null);
  const extra = [...stored].flatMap(([id, seen]) => (seen ? [] : [id]));
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
  const after = await accountedCount(store, business, descriptor);
  const check = judge(business, descriptor.name, after, isVerifiable(descriptor) ? (total ?? null) : null);
  // Counts can agree by accident (one missing, one extra); what the ids showed and was left unfixed still differs.
  const unresolved = missing - written + (extra.length - markedDeleted) > 0;
  const verdict = check.verdict === 'ok' && unresolved ? 'differs' : check.verdict;
  const guarded = { ...(deletions.held === undefined ? {} : { heldDeletions: deletions.held }), ...(deletions.pending === undefined ? {} : { pendingDeletions: deletions.pending }) };
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
  const { business, descriptor, store, guard } = options;
  const previous = await store.loadDeletions(business, descriptor);
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
      for (let start = 0; start < decision.due.length; start += MARK_CHUNK) {
        markedDeleted += await store.markDeleted(business, descriptor, decision.due.slice(start, start + MARK_CHUNK));
      }
      const pending = decision.candidates.size;
      if (pending > 0) options.onWarning?.(pendingMessage(pending, earliest(decision.candidates.values()) + guard.afterMs));
      next = { candidates: decision.candidates, held: null };
      result = { markedDeleted, ...(pending > 0 ? { pending } : {}) };
    }
  }
  const hadAny = previous.candidates.size > 0 || previous.held !== null;
  if (hadAny || next.candidates.size > 0 || next.held !== null) await store.saveDeletions(business, descriptor, next);
  return result;
}

/** The smallest of many numbers, without spreading them into one call (100k arguments overflow the stack). */
function earliest(values: Iterable<number>): number {
  let least = Number.POSITIVE_INFINITY;
  for (const value of values) if (value < least) least = value;
  return least;
}
