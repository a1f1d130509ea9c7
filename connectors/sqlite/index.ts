import type { SinkDeps, SinkFactory } from '../../src/sink.js';
import { sqliteConfigSchema } from './sqlite-config.js';
import type { SqliteSinkConfig } from './sqlite-config.js';

export type { SqliteSinkConfig } from './sqlite-config.js';

/** `sink: { type: sqlite, path, busyTimeoutMs? }`: a local warehouse file. */
export const sqliteSinkFactory = {
  type: 'sqlite' as const,
  configSchema: sqliteConfigSchema,
  // Loaded on use: a run that writes to one target never loads the others' drivers.
  create: async (config: SqliteSinkConfig, deps: SinkDeps) => (await import('./sqlite-sink.js')).createSqliteSink(config, deps),
} satisfies SinkFactory<SqliteSinkConfig>;
