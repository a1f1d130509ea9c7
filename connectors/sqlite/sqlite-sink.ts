import type { Sink, SinkDeps } from '../../src/sink.js';
import { ManagedSink } from '../managed-sink.js';
import { SqlSink } from '../sql/sql-sink.js';
import { SqliteBackend } from './sqlite-backend.js';
import type { SqliteSinkConfig } from './sqlite-config.js';
import { openSqlite } from './sqlite-dialect.js';

/** Opens the database file; tables are created by `prepare` (or the first write). */
export function createSqliteSink(config: SqliteSinkConfig, deps: SinkDeps): Promise<Sink> {
  return Promise.resolve().then(() => {
    const backend = new SqliteBackend(openSqlite(config));
    return new ManagedSink(new SqlSink('sqlite', backend), deps.logger.child({ path: config.path }));
  });
}
