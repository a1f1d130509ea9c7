import { z } from 'zod';
import { flushConfigSchema } from '../../src/sink/flush-config.js';

/** The `sink:` section for DuckDB. Unknown keys are an error that names them. */
export const duckdbConfigSchema = z.strictObject({
  type: z.literal('duckdb'),
  /** Database file; its parent directory is created. One process opens it at a time. */
  path: z.string().min(1),
  /**
   * Most memory DuckDB's buffer pool may take, in DuckDB's words (`256MB`, `1GB`). A flush's rows
   * are held in it until their commit: with `flush.maxRows` above 3,000 raise it (48MB held 5,000).
   * @defaultValue '32MB' (DuckDB's own default is 80 % of the machine's memory)
   */
  memoryLimit: z
    .string()
    .regex(/^\d+(\.\d+)?\s*(KB|MB|GB|KiB|MiB|GiB)$/i, 'a size such as 256MB or 1GB')
    .optional(),
  /** How many pages one transaction (one appender fill and one merge) gathers. @defaultValue {@link DEFAULT_FLUSH} */
  flush: flushConfigSchema,
});

export type DuckdbSinkConfig = z.infer<typeof duckdbConfigSchema>;

/** @defaultValue for {@link DuckdbSinkConfig.memoryLimit} */
export const DEFAULT_MEMORY_LIMIT = '32MB';

/**
 * @defaultValue for {@link DuckdbSinkConfig.flush}: 1,000 records or a second. A merge and a commit
 * cost about 40 ms whatever their size, so two 500-call pages a transaction already halve that cost
 * against one; larger flushes hold more records in the JavaScript heap and DuckDB until their commit.
 */
export const DEFAULT_FLUSH = Object.freeze({ maxRows: 1000, maxMs: 1000 });
