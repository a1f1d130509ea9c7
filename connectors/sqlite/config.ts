import { z } from 'zod';

/** The `sink:` section for SQLite. Unknown keys are an error that names them. */
export const sqliteConfigSchema = z.strictObject({
  type: z.literal('sqlite'),
  /** Database file; its parent directory is created. `:memory:` is for tests only. */
  path: z.string().min(1),
  /** How long a write waits for another process's lock before failing. @defaultValue 5000 */
  busyTimeoutMs: z.number().int().nonnegative().optional(),
});

export type SqliteSinkConfig = z.infer<typeof sqliteConfigSchema>;

/** @defaultValue for {@link SqliteSinkConfig.busyTimeoutMs} */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;
