import { resolve } from 'node:path';
import type { SinkDeps, SinkDescription, SinkFactory } from '../../src/sink/sink.js';
import { explainSqliteFailure } from './explain.js';
import { ManagedSink } from '../../src/sink/managed-sink.js';
import { errorCodes } from '../../src/sink/sink-errors.js';
import { openSqlStore } from '../sql/open-sql-store.js';
import { sqliteConfigSchema } from './sqlite-config.js';
import type { SqliteSinkConfig } from './sqlite-config.js';

function describeSqlite(config: SqliteSinkConfig): SinkDescription {
  return { key: 'sink.path', service: 'SQLite', shown: config.path, lockName: `sqlite:${resolve(config.path)}` };
}

/** `sink: { type: sqlite, path, busyTimeoutMs? }`: a local warehouse file; tables are created by `prepare` (or the first write). */
export const sqliteSinkFactory = {
  type: 'sqlite' as const,
  configSchema: sqliteConfigSchema,
  create: async (config: SqliteSinkConfig, deps: SinkDeps) => {
    const sink = describeSqlite(config);
    const explain = (error: unknown) => explainSqliteFailure(errorCodes(error), sink);
    return new ManagedSink({ type: 'sqlite', store: await openSqlStore(config, deps.logger), explain }, deps.logger.child({ path: config.path }));
  },
  describe: describeSqlite,
  explain: explainSqliteFailure,
} satisfies SinkFactory<SqliteSinkConfig>;
