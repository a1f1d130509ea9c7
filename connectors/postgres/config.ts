import { z } from 'zod';
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
});

export type PostgresSinkConfig = z.infer<typeof postgresConfigSchema>;

/** @defaultValue for {@link PostgresSinkConfig.poolSize} */
export const DEFAULT_POOL_SIZE = 10;
