import type { Logger } from 'pino';
import type { CallsyncConfig } from '../../config/index.js';
import type { CallsyncMetrics } from '../../engine/metrics/index.js';
import type { ExtraRoutes } from '../server/index.js';
import { DeliveryLog, SeenDeliveries } from './delivery-log.js';
import { receiverConnectionLimits, startHookServer, type HookServer } from './hook-server.js';
import { createHookReceiver, type HookBusiness } from './receiver.js';
import type { RedisClient } from '../../base/redis/index.js';

type HooksConfig = NonNullable<CallsyncConfig['hooks']>;

interface HooksOptions {
  readonly hooks: HooksConfig;
  readonly businesses: CallsyncConfig['businesses'];
  /** Each business's streams as planned (config order). */
  readonly streams: ReadonlyMap<string, readonly string[]>;
  readonly trigger: (business: string, streams: readonly string[]) => Promise<void>;
  readonly redis: RedisClient;
  readonly prefix: string;
  readonly metrics: CallsyncMetrics;
  readonly logger: Logger;
}

interface RunningHooks {
  /** Set when the receiver shares the operators' server (`hooks.port` absent). */
  readonly routes?: ExtraRoutes;
  /** The receiver's own server, when `hooks.port` is set. */
  readonly server?: HookServer;
  readonly deliveries: DeliveryLog;
  close(): Promise<void>;
}

/** The webhook side of `run`: the receiver on its own port or as routes for the operators' server. */
export async function startHooks(options: HooksOptions): Promise<RunningHooks> {
  const { hooks } = options;
  const businesses = new Map<string, HookBusiness>();
  for (const business of options.businesses) {
    const secret = business.webhookSecret ?? hooks.secret;
    // The config checks guarantee one; a business without is simply not receivable.
    if (secret !== undefined) businesses.set(business.name, { secret, streams: options.streams.get(business.name) ?? [] });
  }
  const deliveries = new DeliveryLog(options.redis, options.prefix);
  const seen = new SeenDeliveries(options.redis, options.prefix);
  const receiver = createHookReceiver({
    settings: { ...hooks, signature: { ...hooks.signature, toleranceMs: hooks.signature.tolerance }, bodyTimeoutMs: hooks.bodyTimeout },
    businesses,
    trigger: options.trigger,
    firstSighting: (business, id, ttlMs) => seen.first(business, id, ttlMs),
    onDelivery: (outcome, business, atMs) => {
      options.metrics.webhookDelivery(business, outcome);
      if (business !== undefined) deliveries.record(business, outcome, atMs);
    },
    logger: options.logger,
  });
  if (hooks.port === undefined) {
    const routes: ExtraRoutes = {
      owns: (path) => receiver.owns(path),
      handle: (req, res, path) => receiver.handle(req, res, path),
      connectionLimits: receiverConnectionLimits(receiver.settings),
    };
    return { routes, deliveries, close: () => Promise.resolve() };
  }
  const server = await startHookServer({ host: hooks.host, port: hooks.port, receiver, logger: options.logger });
  return { server, deliveries, close: () => server.close() };
}
