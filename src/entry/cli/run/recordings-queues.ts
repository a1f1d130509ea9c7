import { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { RedisClient, RedisOutageLog } from '../../../base/redis/index.js';
import type { CallsyncConfig } from '../../../config/index.js';
import { ARCHIVE_QUEUE, createArchiveProcessor, queueArchive, type ArchiveJobData } from '../../../engine/queue/archive-job.js';
import type { QueueKeys } from '../../../engine/queue/names.js';
import type { BusinessPlan } from '../../../engine/sync/business-plan.js';
import type { RateLimiter } from '../../../source/ratelimit/index.js';
import { startArchiveRun } from '../recordings/archive-run.js';

/** BullMQ events kept in the archive queue's stream (nothing reads it). */
const EVENTS_KEPT = 100;

interface RecordingsQueuesOptions {
  readonly config: CallsyncConfig;
  /** The config file, named in a setup error. */
  readonly file: string;
  readonly secrets: readonly string[];
  /** BullMQ's connection (retries forever). */
  readonly connection: RedisClient;
  readonly outage: RedisOutageLog;
  readonly keys: QueueKeys;
  /** The shards this process consumes: it runs their archive jobs too. */
  readonly consume: readonly number[];
  readonly plans: readonly BusinessPlan[];
  /** The deployment's shared Redis limiter: the recordings hosts' buckets and the businesses' own. */
  readonly limiter: RateLimiter;
  readonly logger: Logger;
  /** Aborted at shutdown: downloads in flight stop, their jobs go back to the queue. */
  readonly signal: AbortSignal;
  /** @defaultValue one keep-alive agent for the archive */
  readonly dispatcher?: Dispatcher;
}

/** The archive side of a `run` replica. */
export interface RecordingsQueues {
  /** A sync of `business` stored records: queue its archive pass (coalesced). Never throws; a Redis failure is logged. */
  afterSync(business: string): void;
  /** Stops the archive workers (their downloads aborted by the signal first), then closes the archive. */
  close(): Promise<void>;
}

/**
 * Archiving in `run`: one `recordings` queue beside each shard's `sync` queue, worked by this
 * process for the shards it consumes, with the archive's own concurrency
 * (`recordings.concurrency` downloads at once in this process) and its budget taken from the
 * shared limiter, so replicas together stay within each recordings host's `requestsPerMinute` and,
 * with `countAgainstApi`, within each business's `rateLimit`. At start, one pass per business of
 * the consumed shards catches up what an earlier process left pending.
 */
export async function startRecordingsQueues(options: RecordingsQueuesOptions): Promise<RecordingsQueues> {
  const { keys, logger, plans } = options;
  const recordings = options.config.recordings;
  if (recordings === undefined) throw new Error('startRecordingsQueues needs a recordings: section');
  const archive = await startArchiveRun({
    config: options.config,
    file: options.file,
    plans,
    limiter: options.limiter,
    logger,
    secrets: options.secrets,
    signal: options.signal,
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
    onProgress: ({ ref, outcome }) => {
      const detail = outcome.state === 'archived' ? { bytes: outcome.bytes } : { reason: outcome.reason };
      logger.info({ business: ref.businessId, stream: ref.stream, id: ref.id, ...detail }, `recording ${outcome.state}`);
    },
  });
  const queues = Array.from({ length: keys.space.shards }, (_, shard) =>
    new Queue<ArchiveJobData>(ARCHIVE_QUEUE, {
      connection: options.connection,
      prefix: keys.bullOf(shard),
      streams: { events: { maxLen: EVENTS_KEPT } },
    }).on('error', (error) => options.outage.error('queue', error)),
  );
  const queueOf = (business: string): Queue<ArchiveJobData> => {
    const queue = queues[keys.space.shardOf(business)];
    if (queue === undefined) throw new RangeError(`no shard for ${business}`);
    return queue;
  };
  const processor = createArchiveProcessor({ businesses: new Set(plans.map((plan) => plan.name)), pass: (business) => archive.pass(business), logger });
  const perShard = Math.max(1, Math.ceil(recordings.concurrency / options.consume.length));
  const workers = options.consume.map((shard) =>
    new Worker<ArchiveJobData>(ARCHIVE_QUEUE, processor, {
      connection: options.connection,
      prefix: keys.bullOf(shard),
      concurrency: perShard,
      lockDuration: options.config.worker.lockDurationMs,
      stalledInterval: options.config.worker.stalledIntervalMs,
      maxStalledCount: 2,
    })
      .on('error', (error) => options.outage.error('worker', error))
      .on('failed', (job, error) => {
        // A pass cut off by the shutdown is no failure: its rows stay pending for the next pass.
        if (options.signal.aborted) return;
        logger.warn({ business: job?.data.business, attempt: job?.attemptsMade, err: error.message }, 'archive pass failed');
      }),
  );
  const queue = (business: string): Promise<void> =>
    queueArchive(queueOf(business), business).catch((error: unknown) => {
      logger.warn(
        { business, err: error instanceof Error ? error.message : String(error) },
        'could not queue an archive pass; the next stored page queues one',
      );
    });
  const mine = plans.filter((plan) => options.consume.includes(keys.space.shardOf(plan.name)));
  await Promise.all(mine.map((plan) => queue(plan.name)));
  logger.info({ concurrency: recordings.concurrency, businesses: mine.length }, 'recordings archive started');
  return {
    afterSync: (business) => void queue(business),
    async close() {
      await Promise.all(workers.map((worker) => worker.close()));
      await Promise.all(queues.map((q) => q.close()));
      await archive.close();
    },
  };
}
