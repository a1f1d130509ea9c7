import { z } from 'zod';
import { flushConfigSchema } from '../../src/sink/flush-config.js';
import { IDENTIFIER_PATTERN } from '../sql/index.js';

/** The `sink:` section for Postgres. Unknown keys are an error that names them. */
export const postgresConfigSchema = z.strictObject({
  type: z.literal('postgres'),
  /** Connection URL, e.g. `${DATABASE_URL}`; it may carry a password, so it is never logged. */
  url: z.string().regex(/^postgres(ql)?:\/\/./, 'expected a postgres:// or postgresql:// URL'),
  /** Schema holding every table; created when missing. @defaultValue 'callsync' */
  schema: z.string().regex(IDENTIFIER_PATTERN, 'a lower-case SQL identifier, at most 63 characters').default('callsync'),
  /** Connections in the pool. @defaultValue 10 */
  poolSize: z.number().int().min(1).max(100).optional(),
  /** How many pages one transaction gathers. @defaultValue {@link DEFAULT_FLUSH} */
  flush: flushConfigSchema,
});

export type PostgresSinkConfig = z.infer<typeof postgresConfigSchema>;

/** @defaultValue for {@link PostgresSinkConfig.poolSize} */
export const DEFAULT_POOL_SIZE = 10;

/**
 * @defaultValue for {@link PostgresSinkConfig.flush}: 5,000 records, a second. Above a few thousand
 * rows a transaction's fixed costs (the commit, the merge's plan) no longer show; a second keeps a
 * slow stream's rows from waiting long.
 */
export const DEFAULT_FLUSH = Object.freeze({ maxRows: 5000, maxMs: 1000 });
