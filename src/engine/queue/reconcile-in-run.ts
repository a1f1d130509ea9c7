import type { Logger } from 'pino';
import { describeDrift, isVerifiable, type StreamCheck } from '../reconcile/check.js';
import { deletionGuard, loadDeletions, reconcileStream } from '../reconcile/repair.js';
import type { Sink } from '../../sink/sink.js';
import type { DriftReading } from '../state/index.js';
import type { BusinessPlan } from '../sync/business-plan.js';
import type { Source } from '../../source/source.js';
import type { StreamDescriptor } from '../../source/streams/stream-descriptor.js';
import type { SyncJobDeps } from './job-deps.js';

/** At most one automatic repair per stream this often, so a drift that persists is not walked after every run. */
const MAX_REPAIR_INTERVAL_MS = 60 * 60_000;

interface ReconcileInRunOptions {
  readonly deps: SyncJobDeps;
  readonly plan: BusinessPlan;
  /** The stream, read within the business's budget (the job's own source). */
  readonly source: Source;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /**
   * `after_run`: the run reached the end and its last page said `total`: compare counts (no
   * request); a difference the previous run saw too is a drift, repaired. `scheduled`: the full
   * reconciliation, an id-level walk.
   */
  readonly when: { readonly kind: 'after_run'; readonly total: number | undefined } | { readonly kind: 'scheduled' };
}

/** A walk cut off (a budget pause, a shutdown, an error) frees its claim, so the next job resumes it from its checkpoint. */
async function releasingOnCutOff<T>(deps: SyncJobDeps, claimKey: string, signal: AbortSignal, walk: () => Promise<T>): Promise<T> {
  try {
    const result = await walk();
    if (signal.aborted) await deps.redis.del(claimKey);
    return result;
  } catch (error) {
    await deps.redis.del(claimKey);
    throw error;
  }
}

async function claim(deps: SyncJobDeps, key: string, ttlMs: number): Promise<boolean> {
  return (await deps.redis.set(key, '1', 'PX', Math.max(1, Math.floor(ttlMs)), 'NX')) === 'OK';
}

/**
 * A drift not walked this time (walked within the hour) keeps saying what the last walk held back,
 * so the operator still reads how many records would be marked and how to confirm.
 */
async function withHeldDeletions(sink: Sink, business: string, descriptor: StreamDescriptor, check: StreamCheck): Promise<StreamCheck> {
  if (check.difference === null || check.difference >= 0) return check;
  const { held } = await loadDeletions(sink, business, descriptor);
  return held === null ? check : { ...check, heldDeletions: held };
}

function logCheck(logger: Logger, check: StreamCheck, message: string): void {
  const fields = {
    stored: check.stored,
    upstream: check.upstream,
    difference: check.difference,
    missing: check.missing,
    extra: check.extra,
    written: check.written,
    markedDeleted: check.markedDeleted,
    heldDeletions: check.heldDeletions?.count,
    pendingDeletions: check.pendingDeletions,
  };
  if (check.verdict === 'differs') logger.warn({ ...fields, drift: describeDrift(check) }, message);
  else logger.info(fields, message);
}

/**
 * Reconciliation inside `run`, under the stream's lock (so repairs never race the sync). A drift
 * is repaired at once unless `reconcile.repair` is false.
 * @returns the reading for the stream's status, or undefined when nothing could be compared
 */
export async function reconcileInRun(options: ReconcileInRunOptions): Promise<DriftReading | undefined> {
  const { deps, plan, source, logger, when } = options;
  const { descriptor } = source;
  if (!isVerifiable(descriptor)) return undefined;
  const { reconcile } = deps.config;
  const base = {
    business: plan.name,
    source,
    sink: deps.sink,
    normalizeContext: plan.normalizeContext,
    guard: deletionGuard(reconcile),
    signal: options.signal,
    onWarning: (warning: string) => logger.warn({ warning }, 'reconcile warning'),
  };
  let check: StreamCheck;
  if (when.kind === 'scheduled') {
    // One full walk per interval, whatever runs the job twice (a retry waiting for the lock, a scheduler made again).
    const claimKey = deps.keys.fullReconcileClaim(plan.name, descriptor.name);
    if (!(await claim(deps, claimKey, reconcile.every * 0.9))) return undefined;
    check = await releasingOnCutOff(deps, claimKey, options.signal, () => reconcileStream({ ...base, mode: reconcile.repair ? 'repair' : 'walk' }));
    logCheck(logger, check, reconcile.repair ? 'full reconciliation (repairing)' : 'full reconciliation');
  } else {
    if (when.total === undefined) return undefined;
    check = await reconcileStream({ ...base, mode: 'count', knownTotal: when.total });
    if (check.verdict !== 'differs') return { difference: check.difference ?? 0, drift: null };
    // A record that arrives while a newest-first walk goes down is counted in the last page's
    // total but stored only by the next run: one difference may be that race. A drift is a
    // difference two runs in a row see.
    const previous = (await deps.statusStore.get(plan.name, descriptor.name))?.difference ?? null;
    if (previous === null || previous === 0) {
      logger.info(
        { stored: check.stored, upstream: check.upstream, difference: check.difference },
        'difference after this run; a drift if the next run sees one too',
      );
      return { difference: check.difference ?? 0, drift: null };
    }
    logCheck(logger, check, 'drift: the sink and upstream disagree');
    if (!reconcile.repair) return { difference: check.difference ?? 0, drift: describeDrift(check) };
    const claimKey = deps.keys.repairClaim(plan.name, descriptor.name);
    // The next walk of a persisting drift is also the second walk that deletions below the guard wait for.
    if (!(await claim(deps, claimKey, Math.min(reconcile.every, MAX_REPAIR_INTERVAL_MS, reconcile.deleteAfter)))) {
      return { difference: check.difference ?? 0, drift: describeDrift(await withHeldDeletions(deps.sink, plan.name, descriptor, check)) };
    }
    check = await releasingOnCutOff(deps, claimKey, options.signal, () => reconcileStream({ ...base, mode: 'repair' }));
    logCheck(logger, check, check.verdict === 'differs' ? 'drift remains after repair' : 'drift repaired');
  }
  return { difference: check.difference ?? 0, drift: check.verdict === 'differs' ? describeDrift(check) : null };
}
