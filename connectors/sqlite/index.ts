import { resolve } from 'node:path';
import type { SinkDeps, SinkDescription, SinkFactory } from '../../src/sink/sink.js';
import { ManagedSink } from '../../src/sink/managed-sink.js';
import { errorCodes } from '../../src/sink/sink-errors.js';
import type { SqlDialect } from '../sql/index.js';
import { sqliteConfigSchema, type SqliteSinkConfig } from './config.js';
import { explainSqliteFailure } from './errors.js';

/**
 * SQLite opening itself, for its sink and for a connector's `state:`. better-sqlite3 loads on the
 * first open, so a run that writes elsewhere never loads it.
 */
export const sqliteDialect = {
  type: 'sqlite' as const,
  configSchema: sqliteConfigSchema,
  open: async (config: SqliteSinkConfig) => (await import('./target.js')).openSqliteStore(config),
  openDriver: async (config: SqliteSinkConfig) => {
    const { sqliteAdapter, openSqliteDriver } = await import('./target.js');
    return { adapter: sqliteAdapter, driver: openSqliteDriver(config) };
  },
} satisfies SqlDialect<SqliteSinkConfig>;

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
    return new ManagedSink({ type: 'sqlite', store: await sqliteDialect.open(config), explain }, deps.logger.child({ path: config.path }));
  },
  describe: describeSqlite,
  explain: explainSqliteFailure,
} satisfies SinkFactory<SqliteSinkConfig>;
