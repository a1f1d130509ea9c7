import { z } from 'zod';
import { flushConfigSchema } from '../../src/sink/flush-config.js';

/** The `sink:` section for MySQL 8 and MariaDB 10.11+. Unknown keys are an error that names them. */
export const mysqlConfigSchema = z.strictObject({
  type: z.literal('mysql'),
  /**
   * Connection URL naming the database that holds every table, e.g. `${MYSQL_URL}`
   * (`mysql://user:password@host:3306/callsync`); it may carry a password, so it is never logged.
   */
  url: z.string().regex(/^mysql:\/\/[^/?#]+\/[^/?#]+/, 'expected a mysql://user@host:3306/database URL (the database holds the tables)'),
  /** Connections in the pool. @defaultValue 10 */
  poolSize: z.number().int().min(1).max(100).optional(),
  /** How many pages one transaction gathers. @defaultValue every page by itself (a flush holds its pages in memory: measured, it raised the peak RSS of a 300k-call backfill past 250 MB) */
  flush: flushConfigSchema,
});

export type MysqlSinkConfig = z.infer<typeof mysqlConfigSchema>;

/** @defaultValue for {@link MysqlSinkConfig.poolSize} */
export const DEFAULT_POOL_SIZE = 10;

/** The database the URL names (its path), decoded: MySQL's schema. */
export function urlDatabase(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.slice(1));
  } catch {
    return '';
  }
}
