import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../simulator/index.js';
import { redisUrl, uniqueName } from '../services.js';
import type { CleanupSteps } from '../support/cleanup-steps.js';
import { diffSqliteAgainstSimulator } from '../support/sqlite-mirror.js';
import { countRows } from './measures.js';
import { cliCommand } from '../support/cli-process.js';

const ROOT = join(import.meta.dirname, '../../..');

export interface RunConfigOptions {
  readonly prefix: string;
  readonly dbPath: string;
  readonly every?: string;
  readonly rateLimit?: { requests: number; perMs: number };
  readonly pageSize?: number;
  readonly worker?: Record<string, number>;
  /** Business names (default: every simulator business). */
  readonly businesses?: readonly string[];
  /** @defaultValue the SQLite file at `dbPath` */
  readonly sink?: Record<string, unknown>;
  /** The `reconcile` section. @defaultValue none (every day, repair on) */
  readonly reconcile?: Record<string, unknown>;
}

/** A `callsync run` config for the simulator; short locks so a killed replica's jobs are taken over quickly. */
export function runConfig(sim: Simulator, options: RunConfigOptions): Record<string, unknown> {
  const names = options.businesses ?? sim.businesses.map((b) => b.name);
  return {
    upstream: {
      baseUrl: sim.baseUrl,
      v2BaseUrl: sim.v2BaseUrl,
      recordingsBaseUrl: sim.recordingsBaseUrl,
      rateLimit: options.rateLimit ?? { requests: 60, perMs: 1000 },
      pageSize: options.pageSize ?? 20,
      retry: { maxAttempts: 4, baseDelayMs: 50, maxDelayMs: 500 },
    },
    businesses: sim.businesses.filter((b) => names.includes(b.name)).map((b) => ({ name: b.name, apiKey: b.apiKey, v2Token: b.v2Token })),
    sink: options.sink ?? { type: 'sqlite', path: options.dbPath, busyTimeoutMs: 20_000 },
    schedule: { every: options.every ?? '2s' },
    redis: { url: redisUrl, prefix: options.prefix },
    server: { host: '127.0.0.1', port: 0 },
    worker: { concurrency: 4, lockDurationMs: 3000, stalledIntervalMs: 1500, shutdownTimeoutMs: 10_000, ...options.worker },
    log: { level: 'info' },
    ...(options.reconcile === undefined ? {} : { reconcile: options.reconcile }),
  };
}

/** A temp dir with a database path and a config writer; `cleanup()` removes it and the Redis keys. */
export function workspace(label: string) {
  const dir = mkdtempSync(join(tmpdir(), `callsync-${label}-`));
  const prefix = uniqueName(label);
  return {
    dir,
    prefix,
    dbPath: join(dir, 'mirror.db'),
    writeConfig(config: Record<string, unknown>, name = 'callsync.json'): string {
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify(config, null, 2));
      return path;
    },
    async cleanup(): Promise<void> {
      rmSync(dir, { recursive: true, force: true });
      await deleteKeys(prefix);
    },
  };
}

export async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}

export interface RunProcess {
  readonly child: ChildProcess;
  /** JSON log lines seen so far. */
  readonly logs: Array<Record<string, unknown>>;
  /** Everything written to stdout so far (what a one-shot command prints). */
  readonly stdout: () => string;
  /** The status server URL, once it logged it. */
  readonly url: Promise<string>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns a real `callsync run` process. */
export function spawnRun(configPath: string, args: readonly string[] = ['run']): RunProcess {
  const child = spawn(...cliCommand([...args, '--config', configPath]), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: Array<Record<string, unknown>> = [];
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  let resolveUrl: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolve) => (resolveUrl = resolve));
  let buffer = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry.msg === 'status server listening' && typeof entry.url === 'string') resolveUrl(entry.url);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, logs, stdout: () => out, url, exited };
}

/** Polls until `check` returns a value other than undefined. */
export async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export async function stopAll(processes: readonly RunProcess[]): Promise<void> {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
}

/** A simulator, a {@link workspace} and the list of its `run` workers, as a scenario starts them. */
export interface Fleet {
  readonly sim: Simulator;
  readonly ws: ReturnType<typeof workspace>;
  /** Every worker started, for `stopAll`; empty until the test spawns them. */
  readonly processes: RunProcess[];
}

/** Starts a {@link Fleet}; its stops go onto `cleanup` so the workers stop first, then the files and keys go, then the simulator. */
export async function startFleet(label: string, simulator: SimulatorOptions, cleanup: CleanupSteps): Promise<Fleet> {
  const sim = await startSimulator(simulator);
  const ws = workspace(label);
  const processes: RunProcess[] = [];
  cleanup.push(
    () => sim.close(),
    () => ws.cleanup(),
    () => stopAll(processes),
  );
  return { sim, ws, processes };
}

/** Every call of every business upstream: the row count a complete mirror's `calls` table reaches. */
export function upstreamCalls(sim: Simulator): number {
  return sim.businesses.reduce((sum, b) => sum + sim.truth(b.name).calls.length, 0);
}

/**
 * Waits until every call upstream is stored, then until the mirror equals the simulator's truth;
 * answers the call count. Polls a cheap row count first: a full diff every poll would starve the
 * simulator (same process).
 */
export async function waitForMirror(dbPath: string, sim: Simulator, storedMs: number, exactMs: number): Promise<number> {
  const expected = upstreamCalls(sim);
  await waitFor('every call stored', () => (countRows(dbPath, 'calls') >= expected ? true : undefined), storedMs, 500);
  await waitFor(
    'the mirror to equal the truth',
    () => {
      const diffs = Object.values(diffSqliteAgainstSimulator(dbPath, sim));
      return diffs.every((d) => d.missing.length + d.unexpected.length + d.different.length === 0) ? true : undefined;
    },
    exactMs,
    1000,
  );
  return expected;
}
