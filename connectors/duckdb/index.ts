import { resolve } from 'node:path';
import type { SinkDeps, SinkDescription, SinkFactory } from '../../src/sink/sink.js';
import { flushCapabilities } from '../../src/sink/flush-config.js';
import { ManagedSink } from '../../src/sink/managed-sink.js';
import { errorCodes } from '../../src/sink/sink-errors.js';
import type { SqlDialect } from '../sql/index.js';
import { DEFAULT_FLUSH, duckdbConfigSchema, type DuckdbSinkConfig } from './config.js';
import { explainDuckDbFailure } from './errors.js';

/**
 * DuckDB opening itself, for its sink and for a connector's `state:`. @duckdb/node-api (and its
 * native binary) loads on the first open, so a run that writes elsewhere never loads it.
 */
const duckdbDialect = {
  type: 'duckdb' as const,
  configSchema: duckdbConfigSchema,
  open: async (config: DuckdbSinkConfig) => (await import('./target.js')).openDuckDbStore(config),
} satisfies SqlDialect<DuckdbSinkConfig>;

function describeDuckDb(config: DuckdbSinkConfig): SinkDescription {
  return { key: 'sink.path', service: 'DuckDB', shown: config.path, lockName: `duckdb:${resolve(config.path)}` };
}

/**
 * `sink: { type: duckdb, path, memoryLimit? }`: an embedded analytical file; tables come with
 * `prepare`. One process holds the file: a second (another replica, a backfill beside a run)
 * fails at open with DuckDB's lock error, explained.
 */
export const duckdbSinkFactory = {
  type: 'duckdb' as const,
  configSchema: duckdbConfigSchema,
  create: async (config: DuckdbSinkConfig, deps: SinkDeps) => {
    const sink = describeDuckDb(config);
    const explain = (error: unknown) => explainDuckDbFailure(errorCodes(error), sink);
    const capabilities = flushCapabilities(config.flush, DEFAULT_FLUSH);
    return new ManagedSink({ type: 'duckdb', store: await duckdbDialect.open(config), capabilities, explain }, deps.logger.child({ path: config.path }));
  },
  describe: describeDuckDb,
  explain: explainDuckDbFailure,
} satisfies SinkFactory<DuckdbSinkConfig>;
