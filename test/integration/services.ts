import { randomBytes } from 'node:crypto';

/** Where the integration tests find the machine's real services; CI and sessions share these addresses. */
export const redisUrl = process.env.CALLSYNC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const postgresUrl = process.env.CALLSYNC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A name no other test uses: one Redis key prefix or Postgres schema per test. */
export function uniqueName(label: string): string {
  return `t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
}
