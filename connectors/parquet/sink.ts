import type { Sink, SinkDeps, SinkDescription } from '../../src/sink/sink.js';
import { flushCapabilities } from '../../src/sink/flush-config.js';
import { ManagedSink } from '../../src/sink/managed-sink.js';
import type { StateStore } from '../../src/sink/parts.js';
import { openObjectStore, type ObjectStore } from '../object-storage/index.js';
import { openStateStore } from '../state-stores/index.js';
import { ParquetEncoder } from './client.js';
import type { ParquetConfig } from './config.js';
import { explainParquetError } from './errors.js';
import { keysOnlyStateStore } from './state.js';
import { ParquetTarget } from './target.js';

/** Replacements for tests: a clock for versions, dates and `synced_at`. */
interface ParquetOverrides {
  readonly now?: () => number;
}

/**
 * The Parquet target (an in-memory DuckDB encoding, the folder or bucket storing) composed with the
 * state store opened from `config.state`; the sink closes all three.
 */
export async function createParquetSink(config: ParquetConfig, deps: SinkDeps, described: SinkDescription, overrides: ParquetOverrides = {}): Promise<Sink> {
  const opened: { store?: StateStore; storage?: ObjectStore; encoder?: ParquetEncoder } = {};
  try {
    opened.store = await openStateStore(config.state, deps.logger.child({ role: 'parquet-state' }));
    opened.storage = await openObjectStore(config.storage);
    opened.encoder = await ParquetEncoder.open(config.compression);
  } catch (error) {
    await opened.encoder?.close();
    await opened.storage?.close();
    await opened.store?.close();
    throw error;
  }
  const { storage, encoder } = opened;
  const store = keysOnlyStateStore(opened.store);
  const target = new ParquetTarget({
    storage,
    encoder,
    checkpoints: store.checkpoints,
    records: store.records,
    maxRowsPerFile: config.maxRowsPerFile,
    ...(overrides.now === undefined ? {} : { now: overrides.now }),
  });
  // The target's own maxBatchSize (maxRowsPerFile) bounds each file of a flush.
  const { flush } = flushCapabilities(config.flush);
  const capabilities = flush === undefined ? {} : { flush };
  return new ManagedSink({ type: 'parquet', store, target, capabilities, explain: (error) => explainParquetError(error, described) }, deps.logger);
}
