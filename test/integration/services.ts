import { randomBytes } from 'node:crypto';

/** Where the integration tests find the machine's real services; CI and sessions share these addresses. */
export const redisUrl = process.env.CALLSYNC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The database the global setup checks and creates the workers' databases from. */
export const basePostgresUrl = process.env.CALLSYNC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * The database of vitest worker `poolId` (`test_w2` for `test`): files side by side never share a
 * catalog. A sink's migrations list the tables of every schema of their database (kysely's
 * introspection), and that read fails when another file drops its schema in the middle of it.
 */
export function workerPostgresUrl(poolId: number): string {
  return workerDatabaseUrl(basePostgresUrl, poolId);
}

/** This worker's database (see {@link workerPostgresUrl}); the base one outside a worker. */
export const postgresUrl = process.env.VITEST_POOL_ID === undefined ? basePostgresUrl : workerPostgresUrl(Number(process.env.VITEST_POOL_ID));

/** MariaDB (or MySQL 8) for the mysql sink; each worker has its own database, as for Postgres. */
export const baseMysqlUrl = process.env.CALLSYNC_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

/** ClickHouse's HTTP interface for the clickhouse sink; each worker has its own database. */
export const baseClickhouseUrl = process.env.CALLSYNC_TEST_CLICKHOUSE_URL ?? 'http://127.0.0.1:8123/test';

/** `url` with its database (the path) suffixed by the worker: `…/test` becomes `…/test_w2`. */
export function workerDatabaseUrl(url: string, poolId: number): string {
  const parsed = new URL(url);
  parsed.pathname = `${parsed.pathname}_w${poolId}`;
  return parsed.toString();
}

const poolId = process.env.VITEST_POOL_ID === undefined ? undefined : Number(process.env.VITEST_POOL_ID);

/** This worker's MariaDB database (`test_wN`); the base one outside a worker. */
export const mysqlUrl = poolId === undefined ? baseMysqlUrl : workerDatabaseUrl(baseMysqlUrl, poolId);

/** This worker's ClickHouse database (`test_wN`); the base one outside a worker. */
export const clickhouseUrl = poolId === undefined ? baseClickhouseUrl : workerDatabaseUrl(baseClickhouseUrl, poolId);

/** A name no other test uses: one Redis key prefix or Postgres schema per test. */
export function uniqueName(label: string): string {
  return `t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
}
