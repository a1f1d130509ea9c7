import type { Queue } from 'bullmq';
import pLimit from 'p-limit';
import type { BusinessPlan } from '../sync/business-plan.js';
import { isSyncSchedulerId, schedulerId, SYNC_JOB, type SyncJobData } from './names.js';

export interface SchedulerChanges {
  readonly upserted: readonly string[];
  readonly removed: readonly string[];
}

const RECONCILE_CONCURRENCY = 32;

/** Finished jobs kept for inspection; older ones are trimmed by BullMQ. */
const KEEP = { removeOnComplete: { count: 100 }, removeOnFail: { count: 500 } } as const;

/**
 * Makes the queue's job schedulers match the config: one per business × stream every `everyMs`
 * (upsert, so a changed interval applies), and none for businesses or streams no longer
 * configured. Every replica runs it at start; it is idempotent.
 */
export async function reconcileSchedulers(
  queue: Queue<SyncJobData>,
  plans: readonly BusinessPlan[],
  everyMs: number,
): Promise<SchedulerChanges> {
  const wanted = new Map<string, SyncJobData>();
  for (const plan of plans) {
    for (const descriptor of plan.streams) wanted.set(schedulerId(plan.name, descriptor.name), { business: plan.name, stream: descriptor.name });
  }
  const existing = await queue.getJobSchedulers(0, -1);
  const removed = existing.map((scheduler) => scheduler.key).filter((id) => isSyncSchedulerId(id) && !wanted.has(id));
  // Each call is one Redis script; a thousand businesses × three streams one by one took ~10 s
  // of round trips, so they go out a few dozen at a time.
  const limit = pLimit(RECONCILE_CONCURRENCY);
  await Promise.all(removed.map((id) => limit(() => queue.removeJobScheduler(id))));
  await Promise.all(
    [...wanted].map(([id, data]) =>
      // attempts 1: a failed run is not retried in place; the next scheduled run is the retry.
      limit(() => queue.upsertJobScheduler(id, { every: everyMs }, { name: SYNC_JOB, data, opts: { attempts: 1, ...KEEP } })),
    ),
  );
  return { upserted: [...wanted.keys()], removed };
}
