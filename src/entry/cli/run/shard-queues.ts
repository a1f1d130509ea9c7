import { Queue, Worker, type Job, type Processor } from 'bullmq';
import type { Logger } from 'pino';
import type { RedisClient, RedisOutageLog } from '../../../base/redis/index.js';
import type { SyncJobResult } from '../../../engine/queue/job-deps.js';
import { keepSchedulers } from '../../../engine/queue/keep-schedulers.js';
import { oneAtATime } from '../../../engine/queue/one-at-a-time.js';
import { SYNC_QUEUE, type QueueKeys, type SyncJobData } from '../../../engine/queue/names.js';
import { pollNow, reconcileSchedulers } from '../../../engine/queue/schedulers.js';
import type { BusinessPlan } from '../../../engine/sync/business-plan.js';

/** BullMQ events kept in its stream (BullMQ's default is 10,000). */
const EVENTS_KEPT = 100;

interface ShardQueuesOptions {
  /** BullMQ's connection: retries forever (`maxRetriesPerRequest: null`), single Redis or Cluster. */
  readonly connection: RedisClient;
  /** Hears the queues' and workers' `error` events (BullMQ prints them to the console when nothing listens). */
  readonly outage: RedisOutageLog;
  readonly keys: QueueKeys;
  /** The shards this process consumes (`queue.consume`, default every one). */
  readonly consume: readonly number[];
  readonly plans: readonly BusinessPlan[];
  readonly everyMs: number;
  readonly reconcileEveryMs: number;
  readonly logger: Logger;
  /** Called when a shard's schedulers were lost and set up again. */
  readonly onRestore: () => Promise<unknown>;
}

interface ShardWorkersOptions {
  readonly processor: Processor<SyncJobData, SyncJobResult>;
  /** Jobs at once in this process, over all its shards. */
  readonly concurrency: number;
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
  readonly onCompleted: (job: Job<SyncJobData, SyncJobResult>, result: SyncJobResult) => void;
  /** Called when a job failed for good (its other streams may have stored pages). @defaultValue nothing */
  readonly onFailed?: (job: Job<SyncJobData, SyncJobResult>) => void;
}

/** The queues of every shard, and the workers of the shards one `run` process consumes. */
interface ShardQueues {
  /** The queue of the business's shard (consumed here or not), e.g. to add a webhook's sync. */
  queueOf(business: string): Queue<SyncJobData, SyncJobResult>;
  /**
   * One BullMQ worker per consumed shard; `concurrency` is shared out, each taking its ceiling
   * share (at least one).
   */
  startWorkers(options: ShardWorkersOptions): void;
  close(): Promise<void>;
}

/**
 * For every consumed shard: its queue's job schedulers made to match the config (the plans of the
 * businesses hashed to it), new streams polled at once, and the schedulers kept through a Redis
 * that restarts empty. Each process keeps the schedulers of the shards it consumes, so
 * deployments that split the shards between them never fight over a scheduler.
 */
export async function openShardQueues(options: ShardQueuesOptions): Promise<ShardQueues> {
  const { keys, logger } = options;
  // Nothing reads BullMQ's event stream; it is written on every job step, so it is kept short.
  const queues = Array.from({ length: keys.space.shards }, (_, shard) =>
    new Queue<SyncJobData, SyncJobResult>(SYNC_QUEUE, {
      connection: options.connection,
      prefix: keys.bullOf(shard),
      streams: { events: { maxLen: EVENTS_KEPT } },
    }).on('error', (error) => options.outage.error('queue', error)),
  );
  const queueAt = (shard: number): Queue<SyncJobData, SyncJobResult> => {
    const queue = queues[shard];
    if (queue === undefined) throw new RangeError(`no shard ${shard}`);
    return queue;
  };
  const keepers: { stop(): void }[] = [];
  const workers: Worker<SyncJobData, SyncJobResult>[] = [];
  for (const shard of options.consume) {
    const queue = queueAt(shard);
    const plans = options.plans.filter((plan) => keys.space.shardOf(plan.name) === shard);
    // Replicas starting together take turns: the second finds every scheduler written and polls nothing twice.
    const turn = <T>(work: () => Promise<T>): Promise<T> => oneAtATime(options.connection, `${keys.bullOf(shard)}:schedulers-lease`, work);
    const changes = await turn(async () => {
      const done = await reconcileSchedulers(queue, plans, options.everyMs, options.reconcileEveryMs);
      await pollNow(queue, done.created);
      return done;
    });
    logger.info(
      {
        shard,
        schedulers: changes.wanted,
        written: changes.upserted.length,
        removed: changes.removed.length,
        polledNow: changes.created.length,
        everyMs: options.everyMs,
      },
      'job schedulers reconciled',
    );
    keepers.push(
      keepSchedulers({
        queue,
        plans,
        everyMs: options.everyMs,
        reconcileEveryMs: options.reconcileEveryMs,
        logger,
        onRestore: options.onRestore,
        oneAtATime: turn,
      }),
    );
  }
  return {
    queueOf: (business) => queueAt(keys.space.shardOf(business)),
    startWorkers(workerOptions) {
      const perShard = Math.max(1, Math.ceil(workerOptions.concurrency / options.consume.length));
      for (const shard of options.consume) {
        const worker = new Worker<SyncJobData, SyncJobResult>(SYNC_QUEUE, workerOptions.processor, {
          connection: options.connection,
          prefix: keys.bullOf(shard),
          concurrency: perShard,
          lockDuration: workerOptions.lockDurationMs,
          stalledInterval: workerOptions.stalledIntervalMs,
          // A job whose worker died twice is failed rather than retried forever; the next scheduled run retries.
          maxStalledCount: 2,
        });
        worker.on('error', (error) => options.outage.error('worker', error));
        worker.on('completed', workerOptions.onCompleted);
        worker.on('failed', (job, error) => {
          logger.debug({ shard, jobId: job?.id, err: error.message }, 'job failed');
          if (job !== undefined) workerOptions.onFailed?.(job);
        });
        workers.push(worker);
      }
    },
    async close() {
      for (const keeper of keepers) keeper.stop();
      await Promise.all(workers.map((worker) => worker.close()));
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}
