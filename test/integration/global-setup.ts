import { Redis } from 'ioredis';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { bundleCli } from './support/cli-build.js';
import { redisUrl, postgresUrl } from './services.js';

const HOW_TO_START = {
  redis: "redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save '' --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log",
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
} as const;

async function checkRedis(): Promise<string | undefined> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    return `Redis is not reachable at ${redisUrl} (${(error as Error).message}). Start it with:\n  ${HOW_TO_START.redis}`;
  } finally {
    redis.disconnect();
  }
}

async function checkPostgres(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: postgresUrl });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return `PostgreSQL is not reachable at ${postgresUrl} (${(error as Error).message}). Start it with:\n  ${HOW_TO_START.postgres}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Integration tests use real services; a missing one fails the run loudly instead of skipping tests.
 * Then bundles the CLI once for every `callsync` the tests spawn, and removes it at the end.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const problems = (await Promise.all([checkRedis(), checkPostgres()])).filter((p): p is string => p !== undefined);
  if (problems.length > 0) {
    throw new Error(`Integration tests need real services:\n${problems.join('\n')}`);
  }
  // Every project that names this setup (integration and integration-serial) shares the run's one bundle.
  if (project.vitest.getProvidedContext().callsyncMain !== undefined) return () => undefined;
  const cli = await bundleCli();
  project.vitest.provide('callsyncMain', cli.main);
  return () => cli.remove();
}
