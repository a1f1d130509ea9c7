import type { Logger } from 'pino';
import { showUrl, urlPlace } from '../../src/base/redact/index.js';
import type { SinkDeps, SinkDescription, SinkFactory } from '../../src/sink/sink.js';
import { flushCapabilities } from '../../src/sink/flush-config.js';
import { ManagedSink } from '../../src/sink/managed-sink.js';
import type { SqlDialect } from '../sql/index.js';
import { DEFAULT_FLUSH, postgresConfigSchema, type PostgresSinkConfig } from './config.js';
import { explainPostgresError, explainPostgresFailure } from './errors.js';

/**
 * Postgres opening itself, for its sink and for a connector's `state:`. pg loads on the first
 * open, so a run that writes elsewhere never loads it.
 */
export const postgresDialect = {
  type: 'postgres' as const,
  configSchema: postgresConfigSchema,
  open: async (config: PostgresSinkConfig, logger: Logger) => (await import('./target.js')).openPostgresStore(config, logger),
  openDriver: async (config: PostgresSinkConfig, logger: Logger) => {
    const { postgresAdapter, openPostgresDriver } = await import('./target.js');
    return { adapter: postgresAdapter(config.schema), driver: openPostgresDriver(config, logger) };
  },
} satisfies SqlDialect<PostgresSinkConfig>;

function describePostgres(config: PostgresSinkConfig): SinkDescription {
  return { key: 'sink.url', service: 'PostgreSQL', shown: showUrl(config.url), lockName: `postgres:${urlPlace(config.url)}#${config.schema}` };
}

/**
 * `sink: { type: postgres, url, schema?, poolSize?, flush? }`: a shared warehouse; the schema and tables come with
 * `prepare`, and a stream's pages are written in flushes of `flush.maxRows` records or `flush.maxMs`.
 */
export const postgresSinkFactory = {
  type: 'postgres' as const,
  configSchema: postgresConfigSchema,
  create: async (config: PostgresSinkConfig, deps: SinkDeps) => {
    const logger = deps.logger.child({ schema: config.schema });
    const sink = describePostgres(config);
    const capabilities = flushCapabilities(config.flush, DEFAULT_FLUSH);
    return new ManagedSink(
      { type: 'postgres', store: await postgresDialect.open(config, logger), capabilities, explain: (error) => explainPostgresError(error, sink) },
      logger,
    );
  },
  describe: describePostgres,
  explain: explainPostgresFailure,
} satisfies SinkFactory<PostgresSinkConfig>;
