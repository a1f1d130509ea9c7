import { Agent, type Dispatcher } from 'undici';
import type { Sink, SinkDeps } from '../../src/sink/sink.js';
import { ManagedSink } from '../../src/sink/managed-sink.js';
import type { StateStore } from '../../src/sink/parts.js';
import type { ArchivedLinks } from '../crm/index.js';
import type { HubSpotConfig } from './config.js';
import { HubSpotTarget } from './target.js';
import type { Clock } from './budget.js';

interface HubSpotSinkDeps extends SinkDeps {
  /** The opened state store (SQLite or Postgres); the HubSpot sink closes it. */
  readonly store: StateStore;
  /** Time source for limiters and backoff. @defaultValue the system clock */
  readonly clock?: Clock;
  /** Jitter source in [0, 1). @defaultValue `Math.random` */
  readonly random?: () => number;
  /** Archived recordings' links, sent instead of upstream's; the sink closes it. @defaultValue none */
  readonly archivedLinks?: ArchivedLinks;
}

/**
 * The HubSpot target composed with an already opened state store. Without `deps.dispatcher` it
 * makes its own keep-alive Agent and closes it on `close()`.
 */
export function createHubSpotSink(config: HubSpotConfig, deps: HubSpotSinkDeps): Sink {
  const dispatcher: Dispatcher = deps.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 8 });
  const target = new HubSpotTarget({
    config,
    dispatcher,
    ownsDispatcher: deps.dispatcher === undefined,
    logger: deps.logger.child({ sink: 'hubspot' }),
    records: deps.store.records,
    ...(deps.archivedLinks === undefined ? {} : { archivedLinks: deps.archivedLinks }),
    ...(deps.clock === undefined ? {} : { clock: deps.clock }),
    ...(deps.random === undefined ? {} : { random: deps.random }),
  });
  return new ManagedSink({ type: 'hubspot', store: deps.store, target }, deps.logger);
}
