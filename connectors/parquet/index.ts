import { resolve } from 'node:path';
import type { Sink, SinkDeps, SinkDescription, SinkFactory } from '../../src/sink/sink.js';
import { objectStorePlace } from '../object-storage/index.js';
import { parquetConfigSchema, type ParquetConfig } from './config.js';
import { explainParquetFailure } from './errors.js';

export { parquetConfigSchema } from './config.js';

function describeParquet(config: ParquetConfig): SinkDescription {
  const { key, shown } = objectStorePlace(config.storage);
  const { storage } = config;
  const place =
    storage.type === 'folder'
      ? resolve(storage.path)
      : `${storage.endpoint === undefined ? storage.region : new URL(storage.endpoint).host}/${storage.bucket}/${storage.prefix}`;
  return {
    key: `sink.${key}`,
    service: storage.type === 'folder' ? 'the Parquet folder' : 'the S3 service',
    shown,
    lockName: `parquet:${storage.type}:${place}`,
  };
}

/** `sink: { type: parquet, storage, state?, compression?, maxRowsPerFile? }`: Parquet files, Hive-partitioned, in a folder or an S3-compatible bucket. */
export const parquetSinkFactory = {
  type: 'parquet' as const,
  configSchema: parquetConfigSchema,
  // DuckDB and the AWS SDK load here, on first use, never with the registry.
  create: async (config: ParquetConfig, deps: SinkDeps): Promise<Sink> => (await import('./sink.js')).createParquetSink(config, deps, describeParquet(config)),
  describe: describeParquet,
  explain: explainParquetFailure,
} satisfies SinkFactory<ParquetConfig>;
