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
  const url = new URL(basePostgresUrl);
  url.pathname = `${url.pathname}_w${poolId}`;
  return url.toString();
}

/** This worker's database (see {@link workerPostgresUrl}); the base one outside a worker. */
export const postgresUrl = process.env.VITEST_POOL_ID === undefined ? basePostgresUrl : workerPostgresUrl(Number(process.env.VITEST_POOL_ID));

/** A name no other test uses: one Redis key prefix or Postgres schema per test. */
export function uniqueName(label: string): string {
  return `t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
}
