import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { SinkDatabase } from '../sql/sink-database.js';
import { DEFAULT_POOL_SIZE } from './postgres-config.js';
import type { PostgresSinkConfig } from './postgres-config.js';

/** A kysely instance over a pg pool, bound to the configured schema. */
export function openPostgres(config: PostgresSinkConfig, logger: Logger): Kysely<SinkDatabase> {
  const pool = new pg.Pool({ connectionString: config.url, max: config.poolSize ?? DEFAULT_POOL_SIZE });
  // An idle client losing its server emits 'error' on the pool; unhandled, that would end the process.
  pool.on('error', (error) => logger.warn({ err: error }, 'postgres idle connection failed; the pool replaces it'));
  return new Kysely<SinkDatabase>({ dialect: new PostgresDialect({ pool }) }).withSchema(config.schema);
}
