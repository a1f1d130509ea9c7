import { showUrl, urlPlace } from '../../src/base/redact/index.js';
import type { SinkDeps, SinkDescription, SinkFactory } from '../../src/sink/sink.js';
import { explainPostgresError, explainPostgresFailure } from './explain.js';
import { ManagedSink } from '../../src/sink/managed-sink.js';
import { openSqlStore } from '../sql/open-sql-store.js';
import { postgresConfigSchema } from './postgres-config.js';
import type { PostgresSinkConfig } from './postgres-config.js';

function describePostgres(config: PostgresSinkConfig): SinkDescription {
  return { key: 'sink.url', service: 'PostgreSQL', shown: showUrl(config.url), lockName: `postgres:${urlPlace(config.url)}#${config.schema}` };
}

/** `sink: { type: postgres, url, schema?, poolSize? }`: a shared warehouse; the schema and tables come with `prepare`. */
export const postgresSinkFactory = {
  type: 'postgres' as const,
  configSchema: postgresConfigSchema,
  create: async (config: PostgresSinkConfig, deps: SinkDeps) => {
    const logger = deps.logger.child({ schema: config.schema });
    const sink = describePostgres(config);
    return new ManagedSink({ type: 'postgres', store: await openSqlStore(config, logger), explain: (error) => explainPostgresError(error, sink) }, logger);
  },
  describe: describePostgres,
  explain: explainPostgresFailure,
} satisfies SinkFactory<PostgresSinkConfig>;
