import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { CallsyncConfig } from '../../config/index.js';
import { createRedisRateLimiter } from '../../ratelimit/index.js';
import { createMetrics } from '../../metrics/index.js';
import { lateAfterSeconds, startStatusServer, type Redact } from '../../server/index.js';
import type { Sink } from '../../sink.js';
import { planBusinesses } from '../../sync/plan-businesses.js';
import { createUpstreamAgent } from '../../upstream/index.js';
import { businessConfigHash, createRedisStatusStore, FailedBusinesses } from '../../state/index.js';
import type { SyncJobResult } from '../../queue/job-deps.js';
import { queueKeys, SYNC_QUEUE, type SyncJobData } from '../../queue/names.js';
import { keepSchedulers } from '../../queue/keep-schedulers.js';
import { pollNow, reconcileSchedulers } from '../../queue/schedulers.js';
import { createSyncProcessor } from '../../queue/sync-job.js';
import { upstreamClients } from '../../queue/upstream-clients.js';
import { triggerSync, WEBHOOK_JOB } from '../../queue/trigger-sync.js';
import { startHooks } from '../../hooks/start-hooks.js';

/** BullMQ events kept in its stream (BullMQ's default is 10,000). */
const EVENTS_KEPT = 100;

export interface RunWorkerOptions {
  readonly config: CallsyncConfig;
  /** Owned by the caller: `shutdown()` leaves it open. */
  readonly sink: Sink;
  readonly logger: Logger;
  /** Scrubs secrets from what the status server serves. */
  readonly redact?: Redact;
  /** @defaultValue one keep-alive agent for the process */
  readonly dispatcher?: Dispatcher;
}

export interface RunWorker {
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
  const keys = queueKeys(config.redis.prefix);
  const redis = new Redis(config.redis.url, { maxRetriesPerRequest: 3 });
  // BullMQ's blocking commands need a connection that retries forever.
  const bullRedis = new Redis(config.redis.url, { maxRetriesPerRequest: null });
  const statusStore = createRedisStatusStore({ redis, prefix: config.redis.prefix });
  const limiter = createRedisRateLimiter({ redis, prefix: config.redis.prefix, maxWaitMs: config.upstream.maxWaitMs });
  const metrics = createMetrics({
    perBusiness: config.metrics.perBusiness,
    statusSource: async () =>
      (await statusStore.list()).map((s) => ({ business: s.business, stream: s.stream, state: s.state, lagSeconds: s.lagSeconds, difference: s.difference })),
  });
  const plans = planBusinesses(config);
  const hashes = new Map(config.businesses.map((b) => [b.name, businessConfigHash(b)]));
  const failed = new FailedBusinesses({ redis, statusStore, prefix: config.redis.prefix });
  const lifted = await failed.reconcile(hashes);
  if (lifted.length > 0) logger.info({ businesses: lifted }, 'config changed: failed businesses resumed');
  await sink.prepare([...new Map(plans.flatMap((plan) => plan.streams.map((s) => [s.table.table, s.table]))).values()]);

  // Without listeners ioredis prints raw stack traces while Redis is away; one log line says it.
  for (const client of [redis, bullRedis]) client.on('error', (error: Error) => logger.warn({ err: error.message }, 'redis unavailable; retrying'));
  // Nothing reads BullMQ's event stream; it is written on every job step, so it is kept short.
  const queue = new Queue<SyncJobData, SyncJobResult>(SYNC_QUEUE, { connection: bullRedis, prefix: keys.bull, streams: { events: { maxLen: EVENTS_KEPT } } });
  const changes = await reconcileSchedulers(queue, plans, config.schedule.every, config.reconcile.every);
  await pollNow(queue, changes.created);
  logger.info({ schedulers: changes.wanted, written: changes.upserted.length, removed: changes.removed.length, polledNow: changes.created.length, everyMs: config.schedule.every }, 'job schedulers reconciled');
  const keeper = keepSchedulers({
    queue, plans, everyMs: config.schedule.every, reconcileEveryMs: config.reconcile.every, logger, onRestore: () => failed.reconcile(hashes),
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
            triggerSync({ queue, redis, prefix: config.redis.prefix, debounceMs: hooksConfig.debounce, minIntervalMs: hooksConfig.minInterval }, business, streams),
          redis,
          prefix: config.redis.prefix,
          metrics,
          logger,
        });
  const server = await startStatusServer({
    host: config.server.host,
    port: config.server.port,
    token: config.server.token,
    statusStore,
    metrics: metrics.registry,
    readiness: { redis: async () => void (await redis.ping()), sink: () => sink.ping() },
    logger,
    redact: options.redact,
    lateAfterSeconds: lateAfterSeconds(config.schedule.every),
    extraRoutes: hooks?.routes,
    webhookDeliveries: hooks === undefined ? undefined : () => hooks.deliveries.read(),
  });
  const worker = new Worker<SyncJobData, SyncJobResult>(
    SYNC_QUEUE,
    createSyncProcessor({
      config, plans: new Map(plans.map((p) => [p.name, p])), configHashes: hashes, client: clients.get, sink, limiter,
      redis, keys, failed, statusStore, metrics, logger, shutdown: stop.signal,
    }),
    {
      connection: bullRedis,
      prefix: keys.bull,
      concurrency: config.worker.concurrency,
      lockDuration: config.worker.lockDurationMs,
      stalledInterval: config.worker.stalledIntervalMs,
      // A job whose worker died twice is failed rather than retried forever; the next scheduled run retries.
      maxStalledCount: 2,
    },
  );
  worker.on('error', (error) => logger.error({ err: error.message }, 'worker error'));
  worker.on('completed', (job, result) => {
    if (result.outcome !== 'done') return;
    // A webhook's sync counts from its first delivery; a scheduled one from when its scheduler fired.
    const webhook = job.name === WEBHOOK_JOB;
    const triggeredAt = job.timestamp + (webhook ? 0 : (job.opts.delay ?? 0));
    for (const stream of result.streams) {
      if (stream.outcome === 'synced') metrics.syncEnded(webhook ? 'webhook' : 'schedule', stream.written, (Date.now() - triggeredAt) / 1000);
    }
  });
  worker.on('failed', (job, error) => logger.debug({ jobId: job?.id, err: error.message }, 'job failed'));
  logger.info({ concurrency: config.worker.concurrency, businesses: plans.length }, 'worker started');

  let closing: Promise<void> | undefined;
  return {
    url: server.url,
    ...(hooksConfig === undefined ? {} : { hooksUrl: `${hooks?.server?.url ?? server.url}${hooksConfig.path}` }),
    shutdown() {
      closing ??= (async () => {
        stop.abort(new Error('shutting down'));
        keeper.stop();
        await hooks?.close();
        await worker.close();
        await queue.close();
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
