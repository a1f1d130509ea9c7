import type { SinkFactory } from '../../src/sink.js';
import { sqliteConfigSchema } from './sqlite-config.js';
import type { SqliteSinkConfig } from './sqlite-config.js';
import { createSqliteSink } from './sqlite-sink.js';

export type { SqliteSinkConfig } from './sqlite-config.js';

/** `sink: { type: sqlite, path, busyTimeoutMs? }`: a local warehouse file. */
export const sqliteSinkFactory = {
  type: 'sqlite' as const,
  configSchema: sqliteConfigSchema,
  create: createSqliteSink,
} satisfies SinkFactory<SqliteSinkConfig>;
