import { z } from 'zod';
import { flushConfigSchema } from '../../src/sink/flush-config.js';
import { objectStoreConfigSchema } from '../object-storage/index.js';
import { stateStoreConfigSchema } from '../state-stores/index.js';

/** The `sink:` section for `type: parquet`. Unknown keys are an error that names them. */
export const parquetConfigSchema = z.strictObject({
  type: z.literal('parquet'),
  /** Where the files go: `{ type: folder, path }` or `{ type: s3, bucket, prefix, endpoint, region, forcePathStyle, … }`. */
  storage: objectStoreConfigSchema,
  /**
   * Where checkpoints, dead letters and the copy of every record written are kept (reconcile reads
   * it): a SQL database, configured as its sink would be. A checkpoint moves there only after the
   * file is stored. @defaultValue `{ type: 'sqlite', path: './data/parquet-state.db' }`
   */
  state: stateStoreConfigSchema.default({ type: 'sqlite', path: './data/parquet-state.db' }),
  /** Parquet compression codec. @defaultValue zstd */
  compression: z.enum(['zstd', 'snappy']).default('zstd'),
  /** Most rows in one file: a flush larger than this is written as several. @defaultValue 10000 */
  maxRowsPerFile: z.int().min(1).max(1_000_000).default(10_000),
  /** How many pages one file gathers: written once they hold `maxRows` records or `maxMs` after the first. @defaultValue every page by itself (a flush holds its pages in memory: measured, it raised the peak RSS of a 300k-call backfill past 250 MB) */
  flush: flushConfigSchema,
});

export type ParquetConfig = z.output<typeof parquetConfigSchema>;
