import type { Sink, SinkDeps } from '../../src/sink.js';
import { ManagedSink } from '../managed-sink.js';
import { SqlSink } from '../sql/sql-sink.js';
import { PostgresBackend } from './postgres-backend.js';
import type { PostgresSinkConfig } from './postgres-config.js';
import { openPostgres } from './postgres-dialect.js';
import { postgresFlavor } from './postgres-flavor.js';

/** Creates the pool lazily (pg connects on first query); the schema and tables come with `prepare`. */
export function createPostgresSink(config: PostgresSinkConfig, deps: SinkDeps): Promise<Sink> {
  const logger = deps.logger.child({ schema: config.schema });
  const backend = new PostgresBackend(openPostgres(config, logger), postgresFlavor(config.schema));
  return Promise.resolve(new ManagedSink(new SqlSink('postgres', backend), logger));
}
