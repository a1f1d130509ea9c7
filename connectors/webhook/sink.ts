import { setTimeout as delay } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import type { Sink, SinkDeps } from '../../src/sink/sink.js';
import { ManagedSink } from '../../src/sink/managed-sink.js';
import type { StateStore } from '../../src/sink/parts.js';
import { openStateStore } from '../state-stores/index.js';
import type { WebhookConfig } from './config.js';
import { bindEndpoint } from './endpoint-binding.js';
import { WebhookTarget, defaultBatchId, type WebhookRuntime } from './target.js';

/** Replacements for tests: a state store, a clock, deterministic jitter, instant sleeps. */
type WebhookOverrides = Partial<Pick<WebhookRuntime, 'now' | 'sleep' | 'random' | 'newBatchId'>> & { readonly store?: StateStore };

/**
 * Builds the webhook sink: the webhook target composed with the state store opened from
 * `config.state` (or `overrides.store`); the sink closes both. Uses `deps.dispatcher` when given
 * (tests pass a MockAgent), otherwise its own keep-alive Agent, closed with the sink.
 */
export async function createWebhookSink(config: WebhookConfig, deps: SinkDeps, overrides: WebhookOverrides = {}): Promise<Sink> {
  const dispatcher: Dispatcher = deps.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 8 });
  const ownedDispatcher = deps.dispatcher === undefined ? dispatcher : undefined;
  let store: StateStore;
  try {
    store = overrides.store ?? (await openStateStore(config.state, deps.logger.child({ role: 'webhook-state' })));
  } catch (error) {
    await ownedDispatcher?.close();
    throw error;
  }
  try {
    // An injected store is a test's own, not a database an operator could point at another receiver.
    if (overrides.store === undefined) await bindEndpoint(store, config);
  } catch (error) {
    await store.close();
    await ownedDispatcher?.close();
    throw error;
  }
  const runtime: WebhookRuntime = {
    logger: deps.logger.child({ endpointHost: new URL(config.url).host }),
    dispatcher,
    ownedDispatcher,
    now: overrides.now ?? Date.now,
    sleep: overrides.sleep ?? ((ms) => delay(ms).then(() => undefined)),
    random: overrides.random ?? Math.random,
    newBatchId: overrides.newBatchId ?? defaultBatchId,
  };
  return new ManagedSink({ type: 'webhook', store, target: new WebhookTarget(config, runtime) }, deps.logger);
}
