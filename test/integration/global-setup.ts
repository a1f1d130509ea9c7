import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { bundleCli } from './support/cli-build.js';
import { baseClickhouseUrl, baseMysqlUrl, basePostgresUrl, redisUrl, workerDatabaseUrl, workerPostgresUrl } from './services.js';

const HOW_TO_START = {
  redis: "redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save '' --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log",
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  // npm test's pretest (scripts/ensure-warehouses.sh) starts both, and installs ClickHouse, when it may.
  mariadb: 'bash scripts/ensure-warehouses.sh',
  clickhouse: 'bash scripts/ensure-warehouses.sh',
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
  const client = new pg.Client({ connectionString: basePostgresUrl });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return `PostgreSQL is not reachable at ${basePostgresUrl} (${(error as Error).message}). Start it with:\n  ${HOW_TO_START.postgres}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function checkMysql(): Promise<string | undefined> {
  try {
    const connection = await mysql.createConnection({ uri: baseMysqlUrl, connectTimeout: 5_000 });
    await connection.query('select 1');
    await connection.end();
    return undefined;
  } catch (error) {
    return `MariaDB is not reachable at ${baseMysqlUrl} (${(error as Error).message}). Start it with:\n  ${HOW_TO_START.mariadb}`;
  }
}

/** Runs one statement on ClickHouse's HTTP interface (the database in the URL's path is left out). */
async function clickhouseQuery(query: string): Promise<string> {
  const url = new URL(baseClickhouseUrl);
  url.pathname = '/';
  url.searchParams.set('query', query);
  const response = await fetch(url, { method: 'POST', signal: AbortSignal.timeout(5_000) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status}: ${text.trim().slice(0, 200)}`);
  return text;
}

async function checkClickhouse(): Promise<string | undefined> {
  try {
    await clickhouseQuery('select 1');
    return undefined;
  } catch (error) {
    return `ClickHouse is not reachable at ${baseClickhouseUrl} (${(error as Error).message}). Install and start it with:\n  ${HOW_TO_START.clickhouse}`;
  }
}

/** Each worker's MariaDB and ClickHouse database, as for Postgres: files side by side never share one. */
async function createWarehouseDatabases(workers: number): Promise<void> {
  const connection = await mysql.createConnection({ uri: baseMysqlUrl });
  try {
    for (let poolId = 1; poolId <= workers; poolId += 1) {
      const name = new URL(workerDatabaseUrl(baseMysqlUrl, poolId)).pathname.slice(1);
      await connection.query(`create database if not exists \`${name}\` character set utf8mb4 collate utf8mb4_bin`);
    }
  } finally {
    await connection.end();
  }
  for (let poolId = 1; poolId <= workers; poolId += 1) {
    await clickhouseQuery(`create database if not exists ${new URL(workerDatabaseUrl(baseClickhouseUrl, poolId)).pathname.slice(1)}`);
  }
}

/** One database per worker of the run (see workerPostgresUrl), created once and kept for later runs. */
async function createWorkerDatabases(workers: number): Promise<void> {
  const client = new pg.Client({ connectionString: basePostgresUrl });
  await client.connect();
  try {
    const existing = new Set((await client.query<{ datname: string }>('select datname from pg_database')).rows.map((row) => row.datname));
    for (let poolId = 1; poolId <= workers; poolId += 1) {
      const name = new URL(workerPostgresUrl(poolId)).pathname.slice(1);
      if (existing.has(name)) continue;
      // Another run may create it at the same moment: then it exists, which is all this needs.
      await client.query(`create database "${name}"`).catch((error: unknown) => {
        if ((error as { code?: string }).code !== '42P04') throw error;
      });
    }
  } finally {
    await client.end();
  }
}

/**
 * Integration tests use real services; a missing one fails the run loudly instead of skipping tests.
 * Then creates the workers' databases and bundles the CLI once for every `callsync` the tests spawn
 * (removed at the end).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const problems = (await Promise.all([checkRedis(), checkPostgres(), checkMysql(), checkClickhouse()])).filter((p): p is string => p !== undefined);
  if (problems.length > 0) {
    throw new Error(`Integration tests need real services:\n${problems.join('\n')}`);
  }
  // Every project that names this setup (integration, path, chaos) shares what it made.
  if (project.vitest.getProvidedContext().callsyncMain !== undefined) return () => undefined;
  const workerCounts = project.vitest.projects.map((each) => each.config.maxWorkers).filter((count) => Number.isInteger(count) && count > 0);
  await createWorkerDatabases(Math.max(1, ...workerCounts));
  await createWarehouseDatabases(Math.max(1, ...workerCounts));
  const cli = await bundleCli();
  project.vitest.provide('callsyncMain', cli.main);
  return () => cli.remove();
}
