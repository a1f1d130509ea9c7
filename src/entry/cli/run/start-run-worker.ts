import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { describeSink } from '../../../../connectors/registry.js';
import type { Dispatcher } from 'undici';
import type { CallsyncConfig } from '../../../config/index.js';
import { createRedisRateLimiter } from '../../../source/ratelimit/index.js';
import { createMetrics } from '../../../engine/metrics/index.js';
import { lateAfterSeconds, startStatusServer, type Redact } from '../../server/index.js';
import type { Sink } from '../../../sink/sink.js';
import { planBusinesses } from '../../../engine/sync/plan-businesses.js';
import { createUpstreamAgent } from '../../../source/upstream/index.js';
import { businessConfigHash, createRedisStatusStore, FailedBusinesses } from '../../../engine/state/index.js';
import { queueKeys, type SyncJobData } from '../../../engine/queue/names.js';
import type { SyncJobResult } from '../../../engine/queue/job-deps.js';
import { createSyncProcessor } from '../../../engine/queue/sync-job.js';
import { upstreamClients } from '../../../engine/queue/upstream-clients.js';
import { triggerSync, WEBHOOK_JOB } from '../../../engine/queue/trigger-sync.js';
import { startHooks } from '../../hooks/start-hooks.js';
import { configKeySpace, connectRedis, redisOutageLog } from '../../../base/redis/index.js';
import { openShardQueues } from './shard-queues.js';
import { startRecordingsQueues, type RecordingsQueues } from './recordings-queues.js';

interface RunWorkerOptions {
  readonly config: CallsyncConfig;
  /** Owned by the caller: `shutdown()` leaves it open. */
  readonly sink: Sink;
  readonly logger: Logger;
  /** Scrubs secrets from what the status server serves. */
  readonly redact?: Redact;
  /** @defaultValue one keep-alive agent for the process */
  readonly dispatcher?: Dispatcher;
  /** The config file, named in a recordings setup error. @defaultValue "the config file" */
  readonly file?: string;
  /** The config's secrets, scrubbed from the archive's failure reasons. @defaultValue none */
  readonly secrets?: readonly string[];
}

interface RunWorker {
  /** The status server's base URL. */
  readonly url: string;
  /** Where webhooks are posted (`{url}/{business}`), when `hooks` is configured. */
  readonly hooksUrl?: string;
  /** Stops taking jobs, stops running ones after their page in flight, closes everything it opened. */
  shutdown(): Promise<void>;
}

/** Starts one `run` replica (the composition root of `run`): schedulers reconciled, a BullMQ worker, and the operators' HTTP port. */
export async function startRunWorker(options: RunWorkerOptions): Promise<RunWorker> {
  const { config, sink, logger } = options;
  const space = configKeySpace(config);
  const keys = queueKeys(space);
  const redis = connectRedis(config.redis, { maxRetriesPerRequest: 3 });
  // BullMQ's blocking commands need a connection that retries forever.
  const bullRedis = connectRedis(config.redis, { maxRetriesPerRequest: null });
  const statusStore = createRedisStatusStore({ redis, prefix: config.redis.prefix, keys: space });
  const limiter = createRedisRateLimiter({ redis, prefix: config.redis.prefix, keys: space, maxWaitMs: config.upstream.maxWaitMs });
  const metrics = createMetrics({
    perBusiness: config.metrics.perBusiness,
    statusSource: () => statusStore.gauges(),
  });
  const plans = planBusinesses(config);
  const hashes = new Map(config.businesses.map((b) => [b.name, businessConfigHash(b)]));
  const failed = new FailedBusinesses({ redis, statusStore, prefix: config.redis.prefix, keys: space });
  const lifted = await failed.reconcile(hashes);
  if (lifted.length > 0) logger.info({ businesses: lifted }, 'config changed: failed businesses resumed');
  await sink.prepare([...new Map(plans.flatMap((plan) => plan.streams.map((s) => [s.table.table, s.table]))).values()]);

  // Without listeners ioredis and BullMQ print raw stack traces while Redis is away; throttled JSON lines say it.
  const outage = redisOutageLog(logger);
  for (const client of [redis, bullRedis]) client.on('error', (error: Error) => outage.error('redis', error)).on('ready', () => outage.ready());
  const consume = config.queue.consume ?? Array.from({ length: space.shards }, (_, shard) => shard);
  const shards = await openShardQueues({
    connection: bullRedis,
    outage,
    keys,
    consume,
    plans,
    everyMs: config.schedule.every,
    reconcileEveryMs: config.reconcile.every,
    logger,
    onRestore: () => failed.reconcile(hashes),
  });

  const dispatcher = options.dispatcher ?? createUpstreamAgent({ timeoutMs: config.upstream.timeoutMs, caFile: config.upstream.caFile });
  const clients = upstreamClients(config.upstream, dispatcher);
  const stop = new AbortController();
  const { hooks: hooksConfig } = config;
  const hooks =
    hooksConfig === undefined
      ? undefined
      : await startHooks({
          hooks: hooksConfig,
          businesses: config.businesses,
          streams: new Map(plans.map((plan) => [plan.name, plan.streams.map((s) => s.name)])),
          trigger: (business, streams) =>
            triggerSync(
              {
                queue: shards.queueOf(business),
                redis,
                prefix: space.base(business),
                debounceMs: hooksConfig.debounce,
                minIntervalMs: hooksConfig.minInterval,
              },
              business,
              streams,
            ),
          redis,
          prefix: config.redis.prefix,
          metrics,
          logger,
        });
  const server = await startStatusServer({
    host: config.server.host,
    port: config.server.port,
    token: config.server.token,
    allowedHosts: config.server.allowedHosts,
    statusStore,
    metrics: metrics.registry,
    readiness: { redis: async () => void (await redis.ping()), sink: () => sink.ping() },
    logger,
    redact: options.redact,
    lateAfterSeconds: lateAfterSeconds(config.schedule.every),
    extraRoutes: hooks?.routes,
    webhookDeliveries: hooks === undefined ? undefined : () => hooks.deliveries.read(),
  });
  // Only with a recordings: section: without one, a sync's end costs no Redis command more.
  const recordings: RecordingsQueues | undefined =
    config.recordings === undefined
      ? undefined
      : await startRecordingsQueues({
          config,
          file: options.file ?? 'the config file',
          secrets: options.secrets ?? [],
          connection: bullRedis,
          redis,
          sink,
          sinkLockName: describeSink(config.sink).lockName,
          outage,
          keys,
          consume,
          plans,
          limiter,
          logger,
          signal: stop.signal,
          ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
        });
  shards.startWorkers({
    processor: createSyncProcessor({
      config,
      plans: new Map(plans.map((p) => [p.name, p])),
      configHashes: hashes,
      client: clients.get,
      sink,
      sinkLockName: describeSink(config.sink).lockName,
      limiter,
      redis,
      keys,
      failed,
      statusStore,
      metrics,
      logger,
      shutdown: stop.signal,
      ...(recordings === undefined ? {} : { afterStreamSynced: (business: string, stream: string) => recordings.afterStreamSynced(business, stream) }),
    }),
    concurrency: config.worker.concurrency,
    lockDurationMs: config.worker.lockDurationMs,
    stalledIntervalMs: config.worker.stalledIntervalMs,
    // A failed job's other streams may have stored pages too.
    ...(recordings === undefined ? {} : { onFailed: (job: Job<SyncJobData, SyncJobResult>) => recordings.afterSync(job.data.business) }),
    onCompleted: (job, result) => {
      if (result.outcome !== 'done') return;
      if (recordings !== undefined && result.streams.some((stream) => stream.outcome === 'synced' && stream.written > 0))
        recordings.afterSync(job.data.business);
      // A webhook's sync counts from its first delivery; a scheduled one from when its scheduler fired.
      const webhook = job.name === WEBHOOK_JOB;
      const triggeredAt = job.timestamp + (webhook ? 0 : (job.opts.delay ?? 0));
      for (const stream of result.streams) {
        if (stream.outcome === 'synced') metrics.syncEnded(webhook ? 'webhook' : 'schedule', stream.written, (Date.now() - triggeredAt) / 1000);
      }
    },
  });
  logger.info({ concurrency: config.worker.concurrency, businesses: plans.length }, 'worker started');

  let closing: Promise<void> | undefined;
  return {
    url: server.url,
    ...(hooksConfig === undefined ? {} : { hooksUrl: `${hooks?.server?.url ?? server.url}${hooksConfig.path}` }),
    shutdown() {
      closing ??= (async () => {
        stop.abort(new Error('shutting down'));
        await hooks?.close();
        await shards.close();
        await recordings?.close();
        await server.close();
        await clients.close();
        if (options.dispatcher === undefined) await dispatcher.close();
        await statusStore.close();
        await limiter.close();
        await Promise.allSettled([redis.quit(), bullRedis.quit()]);
      })();
      return closing;
    },
  };
}
