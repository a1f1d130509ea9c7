import { createHash } from 'node:crypto';
import type { Queue } from 'bullmq';
import pLimit from 'p-limit';
import type { BusinessPlan } from '../sync/business-plan.js';
import { isVerifiable } from '../reconcile/upstream-total.js';
import { isOwnSchedulerId, RECONCILE_JOB, reconcileSchedulerId, schedulerId, SYNC_JOB, type SyncJobData } from './names.js';

export interface SchedulerChanges {
  readonly upserted: readonly string[];
  readonly removed: readonly string[];
  /** Sync schedulers that did not exist before (a new stream, or a Redis that came back empty). */
  readonly created: readonly SyncJobData[];
}

const RECONCILE_CONCURRENCY = 32;

/**
 * A completed job is deleted at once (its result is in the status store and the log; keeping and
 * trimming it cost every poll several commands); the last failed ones are kept for inspection.
 */
const KEEP = { removeOnComplete: true, removeOnFail: { count: 500 } } as const;

/**
 * A scheduler's phase in its interval, from its id: BullMQ fires `every` schedulers at multiples
 * of the interval plus this offset, so thousands of streams spread evenly over the interval
 * instead of firing together, and each keeps its phase across restarts, replicas and a Redis that
 * came back empty. Never 0, which BullMQ reads as "the phase of the moment it was created".
 */
export function schedulerOffset(id: string, everyMs: number): number {
  if (everyMs <= 1) return 0;
  return 1 + (createHash('sha256').update(id).digest().readUInt32BE(0) % (everyMs - 1));
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
    for (const descriptor of plan.streams) {
      const data = { business: plan.name, stream: descriptor.name };
      wanted.set(schedulerId(plan.name, descriptor.name), { name: SYNC_JOB, data, every: everyMs });
      // Only streams upstream can count get a full reconciliation; a v2 walk could prove nothing.
      if (reconcileEveryMs !== undefined && isVerifiable(descriptor)) {
        wanted.set(reconcileSchedulerId(plan.name, descriptor.name), { name: RECONCILE_JOB, data, every: reconcileEveryMs });
      }
    }
  }
  return wanted;
}

/**
 * Makes the queue's job schedulers match the config: one sync per business × stream every
 * `everyMs` and, with `reconcileEveryMs`, one full reconciliation per countable stream (upsert,
 * so a changed interval applies), and none for businesses or streams no longer configured.
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
  const outOfPhase = [...wanted].flatMap(([id, { every }]) => {
    const scheduler = existing.get(id);
    return scheduler?.next !== undefined && Number(scheduler.every) === every && scheduler.next % every !== schedulerOffset(id, every) ? [id] : [];
  });
  // Each call is one Redis script; a thousand businesses × three streams one by one took ~10 s
  // of round trips, so they go out a few dozen at a time.
  const limit = pLimit(RECONCILE_CONCURRENCY);
  await Promise.all([...removed, ...outOfPhase].map((id) => limit(() => queue.removeJobScheduler(id))));
  await Promise.all(
    [...wanted].map(([id, { name, data, every }]) =>
      // attempts 1: a failed run is not retried in place; the next scheduled run is the retry.
      limit(() => queue.upsertJobScheduler(id, { every, offset: schedulerOffset(id, every) }, { name, data, opts: { attempts: 1, ...KEEP } })),
    ),
  );
  const created = [...wanted].flatMap(([id, { name, data }]) => (name === SYNC_JOB && !existing.has(id) ? [data] : []));
  return { upserted: [...wanted.keys()], removed, created };
}

/**
 * One run at once for each new sync scheduler (its first phase may be most of an interval away),
 * so a first start polls every stream within seconds; the stream lock makes a run that meets its
 * scheduler's first one return at once.
 */
export async function pollNow(queue: Queue<SyncJobData>, streams: readonly SyncJobData[]): Promise<void> {
  const BATCH = 500;
  for (let i = 0; i < streams.length; i += BATCH) {
    await queue.addBulk(streams.slice(i, i + BATCH).map((data) => ({ name: SYNC_JOB, data, opts: { attempts: 1, ...KEEP } })));
  }
}
