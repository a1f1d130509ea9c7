import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { SinkDatabase } from '../sql/sink-database.js';
import { DEFAULT_POOL_SIZE } from './postgres-config.js';
import type { PostgresSinkConfig } from './postgres-config.js';

/** One pg pool: kysely (bound to the configured schema) for queries and DDL, the pool itself for the write path. */
export interface PostgresHandles {
  readonly db: Kysely<SinkDatabase>;
  readonly pool: pg.Pool;
}

/** A kysely instance over a pg pool, bound to the configured schema. */
export function openPostgres(config: PostgresSinkConfig, logger: Logger): PostgresHandles {
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolSize ?? DEFAULT_POOL_SIZE,
    // A page and its checkpoint commit together, so a commit lost in a server crash only means that
    // page is fetched again: waiting for the WAL flush on every page buys nothing and costs throughput.
    options: '-c synchronous_commit=off',
  });
  // An idle client losing its server emits 'error' on the pool; unhandled, that would end the process.
  pool.on('error', (error) => logger.warn({ err: error }, 'postgres idle connection failed; the pool replaces it'));
  return { pool, db: new Kysely<SinkDatabase>({ dialect: new PostgresDialect({ pool }) }).withSchema(config.schema) };
}
