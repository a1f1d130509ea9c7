import { Agent, type Dispatcher } from 'undici';
import type { Sink, SinkDeps } from '../../src/sink.js';
import { ManagedSink } from '../managed-sink.js';
import type { HubSpotConfig } from './config.js';
import { HubSpotConnector } from './hubspot-connector.js';
import type { Clock } from './rolling-window.js';

export interface HubSpotSinkDeps extends SinkDeps {
  /** The opened state store (a SQL sink); the HubSpot sink closes it. */
  readonly stateSink: Sink;
  /** Time source for limiters and backoff. @defaultValue the system clock */
  readonly clock?: Clock;
  /** Jitter source in [0, 1). @defaultValue `Math.random` */
  readonly random?: () => number;
}

/**
 * Builds the managed HubSpot sink around an already opened state sink. Without
 * `deps.dispatcher` it makes its own keep-alive Agent and closes it on `close()`.
 */
export function createHubSpotSink(config: HubSpotConfig, deps: HubSpotSinkDeps): Sink {
  const logger = deps.logger.child({ sink: 'hubspot' });
  const dispatcher: Dispatcher = deps.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 8 });
  const connector = new HubSpotConnector({
    config,
    stateSink: deps.stateSink,
    dispatcher,
    ownsDispatcher: deps.dispatcher === undefined,
    logger,
    ...(deps.clock === undefined ? {} : { clock: deps.clock }),
    ...(deps.random === undefined ? {} : { random: deps.random }),
  });
  return new ManagedSink(connector, deps.logger);
}
