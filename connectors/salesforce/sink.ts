import { Agent, type Dispatcher } from 'undici';
import { createRedactor, forTerminal } from '../../src/base/redact/index.js';
import type { Sink, SinkDeps } from '../../src/sink/sink.js';
import { ManagedSink } from '../../src/sink/managed-sink.js';
import type { StateStore } from '../../src/sink/parts.js';
import type { ArchivedLinks } from '../crm/index.js';
import { ApiAllocation } from './allocation.js';
import { SalesforceAuth } from './auth.js';
import type { SalesforceConfig } from './config.js';
import { SalesforceHttp } from './client.js';
import { SalesforceTarget } from './target.js';

interface SalesforceSinkDeps extends SinkDeps {
  /** The opened state store (SQLite or Postgres); the Salesforce sink closes it. */
  readonly store: StateStore;
  /** Time source for the allocation, token renewal and backoff. @defaultValue the system clock */
  readonly clock?: { now(): number; sleep(ms: number): Promise<void> };
  /** Jitter source in [0, 1). @defaultValue `Math.random` */
  readonly random?: () => number;
  /** Archived recordings' links, sent instead of upstream's; the sink closes it. @defaultValue none */
  readonly archivedLinks?: ArchivedLinks;
}

const systemClock = { now: () => Date.now(), sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) };

/**
 * The Salesforce target composed with an already opened state store. Without `deps.dispatcher`
 * it makes its own keep-alive Agent and closes it on `close()`. Secrets (the client secret and
 * every access token) are scrubbed from whatever it logs or throws.
 */
export function createSalesforceSink(config: SalesforceConfig, deps: SalesforceSinkDeps): Sink {
  const dispatcher: Dispatcher = deps.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 8 });
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger.child({ sink: 'salesforce' });
  const secrets = new Set<string>(config.auth.flow === 'clientCredentials' ? [config.auth.consumerSecret] : []);
  const redact = createRedactor(() => secrets);
  const clean = (text: string): string => redact(forTerminal(text));
  const tokens = new SalesforceAuth({
    auth: config.auth,
    loginUrl: config.loginUrl,
    sessionMinutes: config.sessionMinutes,
    dispatcher,
    logger,
    clock,
    clean,
    secrets,
  });
  const http = new SalesforceHttp({
    dispatcher,
    tokens,
    allocation: new ApiAllocation(config.limits, clock, logger),
    retry: config.retry,
    apiVersion: config.apiVersion,
    logger,
    clock,
    clean,
    ...(deps.random === undefined ? {} : { random: deps.random }),
  });
  const target = new SalesforceTarget({
    config,
    http,
    store: deps.store,
    logger,
    clock,
    ...(deps.random === undefined ? {} : { random: deps.random }),
    ...(deps.archivedLinks === undefined ? {} : { archivedLinks: deps.archivedLinks }),
    release: async () => {
      await deps.archivedLinks?.close();
      if (deps.dispatcher === undefined) await dispatcher.close();
    },
  });
  return new ManagedSink({ type: 'salesforce', store: deps.store, target }, deps.logger);
}
