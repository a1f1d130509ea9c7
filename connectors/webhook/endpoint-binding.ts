import type { StateStore } from '../../src/sink/parts.js';
import type { WebhookConfig } from './config.js';
import { describeEndpoint } from './errors.js';

// The binding is kept as one checkpoint row under a name no business can take (names start with a letter or digit).
const BINDING = { businessId: '(webhook)', stream: 'endpoint' } as const;

/** The state database belongs to another receiver than `sink.url`; the operator must choose. */
class EndpointChangedError extends Error {
  override readonly name = 'EndpointChangedError';
  readonly code = 'ENDPOINT_CHANGED';

  constructor(previous: string, current: string) {
    super(
      `sink.state holds what was delivered to ${previous}, but sink.url is now ${current}: the new receiver would get only records new to the old one\n` +
        'fix: to start fresh, point sink.state at a new database; to adopt the old state (the new receiver already has what the old one got), set sink.onEndpointChange: adopt',
    );
  }
}

/**
 * Binds the state database to the receiver (origin and path, no credentials): the first use
 * records it; a later use with another `sink.url` throws {@link EndpointChangedError} unless
 * `onEndpointChange` is `adopt`, which moves the binding to the new receiver.
 */
export async function bindEndpoint(store: StateStore, config: Pick<WebhookConfig, 'url' | 'onEndpointChange'>): Promise<void> {
  await store.prepare([]);
  const endpoint = describeEndpoint(config.url);
  const bound = (await store.checkpoints.load(BINDING.businessId, BINDING.stream))?.position.endpoint;
  if (bound === endpoint) return;
  if (typeof bound === 'string' && config.onEndpointChange !== 'adopt') throw new EndpointChangedError(bound, endpoint);
  await store.checkpoints.save({ ...BINDING, position: { endpoint }, recordsSynced: 0 });
}
