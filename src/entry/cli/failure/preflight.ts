import type { Logger } from 'pino';
import { createSink, type SinkConfig } from '../../../../connectors/registry.js';
import { reachHttp, type ReachOptions } from '../../../http/index.js';
import type { Sink, StreamTable } from '../../../sink/sink.js';
import type { BusinessPlan } from '../../../engine/sync/business-plan.js';
import { connectRedis, type RedisTarget } from '../../../base/redis/index.js';
import { using, type Target } from './explain.js';
import { redisTarget, sinkTarget } from './targets.js';

/** Every table the plans write, once. */
export function planTables(plans: readonly BusinessPlan[]): StreamTable[] {
  return [...new Map(plans.flatMap((plan) => plan.streams.map((s) => [s.table.table, s.table]))).values()];
}

/**
 * Connects once and pings, without retrying: a command that needs Redis says at once, naming
 * `redis.url` (or `redis.cluster`), instead of ioredis printing a reconnect error per attempt.
 */
export async function pingRedis(target: RedisTarget): Promise<void> {
  const redis = connectRedis(target, { lazyConnect: true, maxRetriesPerRequest: 0, reconnect: false, connectTimeoutMs: 5_000, offlineQueue: false });
  // ioredis rejects with "Connection is closed"; the socket's own error (ECONNREFUSED…) says why.
  let socketError: unknown;
  redis.on('error', (error: unknown) => (socketError ??= error));
  try {
    await using(redisTarget(target), async () => {
      try {
        await redis.connect();
        await redis.ping();
      } catch (error) {
        throw socketError ?? error;
      }
    });
  } finally {
    redis.disconnect();
  }
}

/**
 * Creates the sink, prepares the tables and pings it; a failure names the sink's config key.
 * `recordingsBaseUrl` (`recordings.publicBaseUrl`) makes a CRM sink send archived recordings' links.
 */
export async function openSink(config: SinkConfig, tables: readonly StreamTable[], logger: Logger, recordingsBaseUrl?: string): Promise<Sink> {
  return using(sinkTarget(config), async () => {
    const sink = await createSink(config, { logger, recordingsBaseUrl });
    try {
      await sink.prepare(tables);
      await sink.ping();
      return sink;
    } catch (error) {
      await sink.close().catch(() => undefined);
      throw error;
    }
  });
}

/**
 * Any HTTP answer proves the service is reachable; a reset, refused connection or timeout is tried
 * again under the service's policy (`reachHttp`) before the failure names `target`.
 */
export async function pingHttp(target: Target, url: string, reach: ReachOptions): Promise<void> {
  await using(target, () => reachHttp(url, reach));
}
