import type { Queue } from 'bullmq';
import type { RedisClient } from '../../base/redis/index.js';
import type { SyncJobData } from './names.js';

/** Name of a sync a webhook asked for; it runs exactly as a scheduled one (`SYNC_JOB`), lock and budget alike. */
export const WEBHOOK_JOB = 'webhook';

/** How long a webhook sync that found its stream busy keeps asking again before it gives up (the schedule is the safety net). */
export const WEBHOOK_BUSY_RETRY_FOR_MS = 300_000;

interface TriggerSyncDeps {
  readonly queue: Queue<SyncJobData>;
  readonly redis: RedisClient;
  /** Where the business's keys start: `redis.prefix`, or its shard's hash tag in a tagged key space (`KeySpace.base`). */
  readonly prefix: string;
  /** The first delivery of a burst waits this long for the rest. */
  readonly debounceMs: number;
  /** At most one webhook sync per stream starts within this. */
  readonly minIntervalMs: number;
}

/**
 * Queues an immediate sync of a business's streams for a webhook, coalesced. Per stream, one
 * business job narrowed to that stream (`streams: [stream]`: a delivery for voicemails never
 * joins a waiting job for calls and loses its stream) with a BullMQ deduplication id
 * (`keepLastIfActive`): deliveries while it waits are dropped into it; deliveries while it runs
 * leave one more run after it, never a second run beside it. The first delivery of a burst waits
 * `debounceMs`; a stream that had a webhook sync start within `minIntervalMs` waits that long (a
 * Redis mark with that TTL says so), so 100 deliveries in a second make one or two syncs. The job
 * takes the stream lease and the budget like any other.
 */
export async function triggerSync(deps: TriggerSyncDeps, business: string, streams: readonly string[]): Promise<void> {
  const enc = encodeURIComponent;
  // One command per stream, not a pipeline: under Redis Cluster the marks may live in different slots.
  const firsts = await Promise.all(
    streams.map(
      async (stream) => (await deps.redis.set(`${deps.prefix}:hooks:recent:${enc(business)}:${enc(stream)}`, '1', 'PX', deps.minIntervalMs, 'NX')) === 'OK',
    ),
  );
  await Promise.all(
    streams.map((stream, index) => {
      const first = firsts[index] === true;
      return deps.queue.add(
        WEBHOOK_JOB,
        { business, streams: [stream] },
        {
          delay: first ? deps.debounceMs : Math.max(deps.debounceMs, deps.minIntervalMs),
          attempts: 1,
          removeOnComplete: true,
          removeOnFail: { count: 500 },
          deduplication: { id: `webhook:${business}:${stream}`, keepLastIfActive: true },
        },
      );
    }),
  );
}
