import type { Queue } from 'bullmq';
import pLimit from 'p-limit';
import type { BusinessPlan } from '../sync/business-plan.js';
import { isVerifiable } from '../reconcile/upstream-total.js';
import { isOwnSchedulerId, RECONCILE_JOB, reconcileSchedulerId, schedulerId, SYNC_JOB, type SyncJobData } from './names.js';

export interface SchedulerChanges {
  readonly upserted: readonly string[];
  readonly removed: readonly string[];
}

const RECONCILE_CONCURRENCY = 32;

/** Finished jobs kept for inspection; older ones are trimmed by BullMQ. */
const KEEP = { removeOnComplete: { count: 100 }, removeOnFail: { count: 500 } } as const;

/** The schedulers the config asks for: id → job name, data and interval. */
export function wantedSchedulers(plans: readonly BusinessPlan[], everyMs: number, reconcileEveryMs?: number): Map<string, { name: string; data: SyncJobData; every: number }> {
  const wanted = new Map<string, { name: string; data: SyncJobData; every: number }>();
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
 * Every replica runs it at start; it is idempotent.
 */
export async function reconcileSchedulers(
  queue: Queue<SyncJobData>,
  plans: readonly BusinessPlan[],
  everyMs: number,
  reconcileEveryMs?: number,
): Promise<SchedulerChanges> {
  const wanted = wantedSchedulers(plans, everyMs, reconcileEveryMs);
  const existing = await queue.getJobSchedulers(0, -1);
  const removed = existing.map((scheduler) => scheduler.key).filter((id) => isOwnSchedulerId(id) && !wanted.has(id));
  // Each call is one Redis script; a thousand businesses × three streams one by one took ~10 s
  // of round trips, so they go out a few dozen at a time.
  const limit = pLimit(RECONCILE_CONCURRENCY);
  await Promise.all(removed.map((id) => limit(() => queue.removeJobScheduler(id))));
  await Promise.all(
    [...wanted].map(([id, { name, data, every }]) =>
      // attempts 1: a failed run is not retried in place; the next scheduled run is the retry.
      limit(() => queue.upsertJobScheduler(id, { every }, { name, data, opts: { attempts: 1, ...KEEP } })),
    ),
  );
  return { upserted: [...wanted.keys()], removed };
}
