import { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { RedisClient, RedisOutageLog } from '../../../base/redis/index.js';
import type { CallsyncConfig } from '../../../config/index.js';
import { ARCHIVE_QUEUE, createArchiveProcessor, queueArchive, type ArchiveJobData } from '../../../engine/queue/archive-job.js';
import type { QueueKeys } from '../../../engine/queue/names.js';
import type { BusinessPlan } from '../../../engine/sync/business-plan.js';
import type { RateLimiter } from '../../../source/ratelimit/index.js';
import type { Sink } from '../../../sink/sink.js';
import { startArchiveRun } from '../recordings/archive-run.js';
import { leasedStream } from './leased-stream.js';

/** BullMQ events kept in the archive queue's stream (nothing reads it). */
const EVENTS_KEPT = 100;

interface RecordingsQueuesOptions {
  readonly config: CallsyncConfig;
  /** The config file, named in a setup error. */
  readonly file: string;
  readonly secrets: readonly string[];
  /** BullMQ's connection (retries forever). */
  readonly connection: RedisClient;
  /** The connection stream leases are taken on (the one sync jobs take theirs on). */
  readonly redis: RedisClient;
  /** The sink the syncs write: a CRM sink that sends archived links gets archived calls written again. */
  readonly sink: Sink;
  /** The sink's name in stream locks (`describeSink(config.sink).lockName`). */
  readonly sinkLockName: string;
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
  /**
   * A sync of `business` × `stream` ended and still holds its lease: write again the archived
   * calls a CRM has not had the archived link of (those an archive job found the lease busy for).
   * Never throws; a failure is logged and the calls wait for the next time.
   */
  afterStreamSynced(business: string, stream: string): Promise<void>;
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
    sink: options.sink,
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
  const exclusive = leasedStream({
    redis: options.redis,
    space: keys.space,
    sinkLockName: options.sinkLockName,
    ttlMs: options.config.worker.lockDurationMs,
    logger,
  });
  /**
   * A pass, then the calls it archived written again under each stream's lease. A stream whose
   * lease a sync holds is left: that sync writes them before it frees the lease
   * (`afterStreamSynced`); a backfill holding it writes them at its end.
   */
  const passAndResend = async (business: string): Promise<void> => {
    await archive.pass(business);
    const { busy } = await archive.resend({ business, exclusive });
    if (busy.length > 0) logger.debug({ business, streams: busy }, 'streams being synced; their archived calls are written again by that sync');
  };
  const processor = createArchiveProcessor({ businesses: new Set(plans.map((plan) => plan.name)), pass: passAndResend, logger });
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
    afterStreamSynced: async (business, stream) => {
      try {
        await archive.resend({ business, stream });
      } catch (error) {
        logger.warn(
          { business, stream, err: error instanceof Error ? error.message : String(error) },
          'could not write archived calls again; the next archive pass or sync does',
        );
      }
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.close()));
      await Promise.all(queues.map((q) => q.close()));
      await archive.close();
    },
  };
}
