import type { Sink, SinkDeps } from '../../src/sink.js';
import { postgresSinkFactory } from '../postgres/index.js';
import { sqliteSinkFactory } from '../sqlite/index.js';
import type { WebhookStateConfig } from './config.js';

/**
 * Opens the SQL sink that holds the webhook's checkpoints and dead letters. The factories are
 * imported directly rather than through the registry, which imports this connector.
 */
export function createStateSink(state: WebhookStateConfig, deps: SinkDeps): Promise<Sink> {
  const logger = deps.logger.child({ role: 'webhook-state' });
  switch (state.type) {
    case 'sqlite':
      return sqliteSinkFactory.create(state, { logger });
    case 'postgres':
      return postgresSinkFactory.create(state, { logger });
  }
}
