import { createHash } from 'node:crypto';
import type { Queue } from 'bullmq';
import pLimit from 'p-limit';
import { chunks } from '../../base/chunks.js';
import type { BusinessPlan } from '../sync/business-plan.js';
import { isVerifiable } from '../reconcile/check.js';
import { isOwnSchedulerId, RECONCILE_JOB, reconcileSchedulerId, schedulerId, SYNC_JOB, type SyncJobData } from './names.js';

interface SchedulerChanges {
  /** Schedulers written (missing or not as wanted); those already as wanted are left alone. */
  readonly upserted: readonly string[];
  /** Schedulers the config asks for. */
  readonly wanted: number;
  readonly removed: readonly string[];
  /** Businesses whose sync scheduler did not exist before (a new business, or a Redis that came back empty). */
  readonly created: readonly SyncJobData[];
}

const SCHEDULER_CONCURRENCY = 64;

/**
 * A completed job is deleted at once (its result is in the status store and the log; keeping and
 * trimming it cost every poll several commands); the last failed ones are kept for inspection.
 */
const KEEP = { removeOnComplete: true, removeOnFail: { count: 500 } } as const;

/**
 * Phases fall on whole slots of this length, so the businesses of one slot come due together and
 * the worker takes them back to back (a finish fetches the next job) instead of waking, blocking
 * and taking alone for each: a lone job cost about twice the queue round trips of one in a group.
 */
const PHASE_SLOT_MS = 1000;

/**
 * A scheduler's phase in its interval, from its id: BullMQ fires `every` schedulers at multiples
 * of the interval plus this offset, so thousands of streams spread evenly over the interval's
 * slots instead of firing together, and each keeps its phase across restarts, replicas and a
 * Redis that came back empty. Never 0, which BullMQ reads as "the phase of the moment it was created".
 */
export function schedulerOffset(id: string, everyMs: number): number {
  if (everyMs <= 1) return 0;
  const hash = createHash('sha256').update(id).digest().readUInt32BE(0);
  const slots = Math.floor(everyMs / PHASE_SLOT_MS);
  if (slots < 2) return 1 + (hash % (everyMs - 1));
  return 1 + (hash % slots) * PHASE_SLOT_MS;
}

interface WantedScheduler {
  readonly name: string;
  readonly data: SyncJobData;
  readonly every: number;
}

/** The schedulers the config asks for: id → job name, data and interval. */
export function wantedSchedulers(plans: readonly BusinessPlan[], everyMs: number, reconcileEveryMs?: number): Map<string, WantedScheduler> {
  const wanted = new Map<string, WantedScheduler>();
  for (const plan of plans) {
    if (plan.streams.length === 0) continue;
    const data = { business: plan.name };
    wanted.set(schedulerId(plan.name), { name: SYNC_JOB, data, every: everyMs });
    // Only streams upstream can count get a full reconciliation; a v2 walk could prove nothing.
    if (reconcileEveryMs !== undefined && plan.streams.some(isVerifiable)) {
      wanted.set(reconcileSchedulerId(plan.name), { name: RECONCILE_JOB, data, every: reconcileEveryMs });
    }
  }
  return wanted;
}

/** The part of a stored scheduler that decides whether it is already the wanted one. */
type StoredScheduler = Awaited<ReturnType<Queue<SyncJobData>['getJobSchedulers']>>[number];

/**
 * A scheduler already as wanted is left alone: same job, interval, phase and data, and not stuck
 * (its next run not two intervals overdue). Upserting it again would cost a script each, which at
 * 10,000 businesses is most of a start-up, and would touch every business on every config change.
 */
function upToDate(id: string, stored: StoredScheduler | undefined, wanted: WantedScheduler, nowMs: number): boolean {
  if (stored?.next === undefined || stored.name !== wanted.name || Number(stored.every) !== wanted.every) return false;
  if (stored.next % wanted.every !== schedulerOffset(id, wanted.every) || stored.next < nowMs - 2 * wanted.every) return false;
  const template = stored.template;
  return (
    JSON.stringify(template?.data) === JSON.stringify(wanted.data) && template?.opts?.attempts === 1 && template.opts.removeOnComplete === KEEP.removeOnComplete
  );
}

/**
 * Makes the queue's job schedulers match the config: one sync per business every `everyMs`
 * (its job polls the business's streams in turn) and, with `reconcileEveryMs`, one full
 * reconciliation per business with a countable stream; none for businesses no longer configured,
 * nor the per-stream schedulers of older versions. Only schedulers that are missing or differ
 * are written, so a config that adds or removes businesses touches those only.
 * Each fires at its own phase ({@link schedulerOffset}), first at the next one, never at once: a
 * full reconciliation never starts beside the first syncs. A scheduler out of its phase (made by
 * an older version) is made again. Every replica runs it at start; it is idempotent.
 */
export async function reconcileSchedulers(
  queue: Queue<SyncJobData>,
  plans: readonly BusinessPlan[],
  everyMs: number,
  reconcileEveryMs?: number,
): Promise<SchedulerChanges> {
  const wanted = wantedSchedulers(plans, everyMs, reconcileEveryMs);
  const existing = new Map((await queue.getJobSchedulers(0, -1)).map((scheduler) => [scheduler.key, scheduler]));
  const removed = [...existing.keys()].filter((id) => isOwnSchedulerId(id) && !wanted.has(id));
  const now = Date.now();
  const stale = [...wanted].filter(([id, want]) => !upToDate(id, existing.get(id), want, now));
  const outOfPhase = stale.flatMap(([id, { every }]) => {
    const scheduler = existing.get(id);
    return scheduler?.next !== undefined && scheduler.next % every !== schedulerOffset(id, every) ? [id] : [];
  });
  // Each call is one Redis script; thousands one by one took seconds of round trips, so they go
  // out a few dozen at a time.
  const limit = pLimit(SCHEDULER_CONCURRENCY);
  await Promise.all([...removed, ...outOfPhase].map((id) => limit(() => queue.removeJobScheduler(id))));
  await Promise.all(
    stale.map(([id, { name, data, every }]) =>
      // attempts 1: a failed run is not retried in place; the next scheduled run is the retry.
      limit(() => queue.upsertJobScheduler(id, { every, offset: schedulerOffset(id, every) }, { name, data, opts: { attempts: 1, ...KEEP } })),
    ),
  );
  const created = [...wanted].flatMap(([id, { name, data }]) => (name === SYNC_JOB && !existing.has(id) ? [data] : []));
  return { upserted: stale.map(([id]) => id), wanted: wanted.size, removed, created };
}

/**
 * One run at once for each new sync scheduler (its first phase may be most of an interval away),
 * so a first start polls every stream within seconds; the stream leases make a run that meets its
 * scheduler's first one skip the streams it finds taken.
 */
export async function pollNow(queue: Queue<SyncJobData>, businesses: readonly SyncJobData[]): Promise<void> {
  for (const part of chunks(businesses, 500)) await queue.addBulk(part.map((data) => ({ name: SYNC_JOB, data, opts: { attempts: 1, ...KEEP } })));
}
