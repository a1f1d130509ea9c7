import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import type { SinkConfig } from '../../connectors/registry.js';
import { benchDocument, type BenchConfigOptions, type UpstreamInfo } from '../support/bench-config.js';
import { REPO_ROOT, spawnTsx, stopChild } from '../support/child-process.js';

/** `callsync run` is being built alongside the bench; figures that need it say so until it lands. */
export function workerAvailable(): boolean {
  return existsSync(join(REPO_ROOT, 'src/entry/cli/run.ts'));
}

export interface WorkerSetup {
  readonly file: string;
  readonly redisPrefix: string;
}

/** Writes a `run` config (JSON is valid YAML) with its own Redis prefix and an ephemeral status port. */
export async function writeRunConfig(
  dir: string,
  name: string,
  upstream: UpstreamInfo,
  sink: SinkConfig,
  options: BenchConfigOptions & {
    readonly redisUrl: string;
    readonly every: string;
    readonly logLevel?: string;
    readonly worker?: Readonly<Record<string, unknown>>;
  },
): Promise<WorkerSetup> {
  const redisPrefix = `bench-${name}-${process.pid}-${Date.now()}`;
  const document = benchDocument(upstream, sink, {
    ...options,
    extra: {
      ...options.extra,
      redis: { url: options.redisUrl, prefix: redisPrefix },
      schedule: { every: options.every },
      server: { host: '127.0.0.1', port: 0 },
      ...(options.logLevel === undefined ? {} : { log: { level: options.logLevel } }),
      ...(options.worker === undefined ? {} : { worker: options.worker }),
    },
  });
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(document, null, 2));
  return { file, redisPrefix };
}

export function startRunReplica(configFile: string): ChildProcess {
  return spawnTsx('src/entry/cli/main.ts', ['run', '--config', configFile]);
}

/** Replicas still running: one that crashed would make a replica figure measure fewer processes. */
export function alive(replicas: readonly ChildProcess[]): number {
  return replicas.filter((replica) => replica.exitCode === null && replica.signalCode === null).length;
}

export async function stopReplicas(replicas: readonly ChildProcess[]): Promise<void> {
  await Promise.all(replicas.map((replica) => stopChild(replica)));
}

/** Rows in a SQLite table, 0 while the worker has not created it yet. */
export function countRows(path: string, table: string): number {
  if (!existsSync(path)) return 0;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare(`select count(*) as n from "${table}"`).get() as { n: number };
    return row.n;
  } catch {
    return 0;
  } finally {
    db.close();
  }
}

/** Deletes the keys under this run's prefix (and only those). */
export async function dropRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `done` every `everyMs` until it holds or `timeoutMs` passes; says which. */
export async function waitFor(done: () => boolean, timeoutMs: number, everyMs = 250): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (done()) return true;
    await sleep(everyMs);
  }
  return done();
}
