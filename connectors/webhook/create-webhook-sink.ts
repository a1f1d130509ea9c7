import { setTimeout as delay } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import type { Sink, SinkDeps } from '../../src/sink.js';
import { ManagedSink } from '../managed-sink.js';
import type { WebhookConfig } from './config.js';
import { createStateSink } from './state-sink.js';
import { WebhookConnector, defaultBatchId, type WebhookRuntime } from './webhook-connector.js';

/** Replacements for tests: a state sink fake, a clock, deterministic jitter, instant sleeps. */
export type WebhookOverrides = Partial<Pick<WebhookRuntime, 'stateSink' | 'now' | 'sleep' | 'random' | 'newBatchId'>>;

/**
 * Builds the webhook sink. Uses `deps.dispatcher` when given (tests pass a MockAgent), otherwise
 * its own keep-alive Agent, closed with the sink. The state sink is opened from `config.state`
 * unless `overrides.stateSink` is given; either way the webhook sink closes it.
 */
export async function createWebhookSink(config: WebhookConfig, deps: SinkDeps, overrides: WebhookOverrides = {}): Promise<Sink> {
  const dispatcher: Dispatcher = deps.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 8 });
  const ownedDispatcher = deps.dispatcher === undefined ? dispatcher : undefined;
  const logger = deps.logger.child({ endpointHost: new URL(config.url).host });
  let stateSink: Sink;
  try {
    stateSink = overrides.stateSink ?? (await createStateSink(config.state, deps));
  } catch (error) {
    await ownedDispatcher?.close();
    throw error;
  }
  const runtime: WebhookRuntime = {
    logger,
    dispatcher,
    ownedDispatcher,
    stateSink,
    now: overrides.now ?? Date.now,
    sleep: overrides.sleep ?? ((ms) => delay(ms).then(() => undefined)),
    random: overrides.random ?? Math.random,
    newBatchId: overrides.newBatchId ?? defaultBatchId,
  };
  return new ManagedSink(new WebhookConnector(config, runtime), deps.logger);
}
