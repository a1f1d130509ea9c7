import type { Simulator, SimulatorOptions } from '../../../simulator/index.js';
import type { CleanupSteps } from '../../integration/support/cleanup-steps.js';
import {
  runConfig,
  spawnRun,
  startFleet,
  upstreamCalls,
  waitFor,
  type Fleet,
  type RunConfigOptions,
  type RunProcess,
} from '../../integration/worker/harness.js';
import { figuresOf, type CountedDiff } from './figures.js';
import type { SecretScanner } from './secret-scanner.js';
import { diffSqlite } from './sqlite-figures.js';

export interface ChaosRunOptions extends RunConfigOptions {
  /** @defaultValue the shared test Redis */
  readonly redisUrl?: string;
  /** @defaultValue SQLite at `dbPath` */
  readonly sink?: Record<string, unknown>;
  readonly retry?: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
}

/** The worker harness's `run` config with the few overrides chaos needs (private Redis, another sink). */
export function chaosRunConfig(simulator: Simulator, options: ChaosRunOptions): Record<string, unknown> {
  const base = runConfig(simulator, options) as { upstream: Record<string, unknown>; redis: Record<string, unknown>; sink: Record<string, unknown> };
  return {
    ...base,
    upstream: { ...base.upstream, ...(options.retry === undefined ? {} : { retry: options.retry }) },
    redis: { ...base.redis, ...(options.redisUrl === undefined ? {} : { url: options.redisUrl }) },
    sink: options.sink ?? base.sink,
  };
}

export interface StreamStatus {
  readonly stream: string;
  readonly state: string;
  readonly lastError?: string | null;
}

export interface StatusDocument {
  readonly businesses: ReadonlyArray<{ name: string; failed: string | null; streams: StreamStatus[] }>;
}

export async function readStatus(url: string): Promise<StatusDocument> {
  return (await (await fetch(`${url}/status`)).json()) as StatusDocument;
}

export interface Readiness {
  readonly status: number;
  readonly failing: readonly string[];
  readonly body: string;
}

function failingChecks(body: string): string[] {
  try {
    return (JSON.parse(body) as { failing?: string[] }).failing ?? [];
  } catch {
    return [];
  }
}

export async function readReadiness(url: string): Promise<Readiness> {
  const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) });
  const body = await response.text();
  return { status: response.status, failing: failingChecks(body), body };
}

/** Collects a worker's log lines (as JSON text) for the secret scan. */
export function collectLogs(scanner: SecretScanner, label: string, processes: readonly RunProcess[]): void {
  processes.forEach((process, index) => scanner.collect(`${label} worker ${index} logs`, process.logs.map((line) => JSON.stringify(line)).join('\n')));
}

/** Waits until the SQLite sink at `dbPath` misses nothing of the simulator's truth; answers that diff. */
export async function waitForExactSqlite(dbPath: string, simulator: Simulator, timeoutMs = 30_000, everyMs = 1_000): Promise<Record<string, CountedDiff>> {
  return waitFor(
    'the mirror to equal the truth',
    () => {
      const diffs = diffSqlite(dbPath, simulator);
      return figuresOf(diffs).missing === 0 ? diffs : undefined;
    },
    timeoutMs,
    everyMs,
  );
}

/** A chaos `run` scenario's fleet, and the `run` config its workers share. */
export interface ChaosFleet extends Fleet {
  /** Written with `ws.writeConfig`, as it is or with more (a Redis Cluster, queue shards). */
  readonly config: Record<string, unknown>;
}

/**
 * Starts the fleet of a chaos `run` scenario, the simulator's credentials registered with
 * `scanner`, and makes the config its workers share: a poll every second, pages of 50, the
 * simulator's own budget, and `overrides` (a private Redis, another sink). Stops go onto `cleanup`.
 */
export async function startChaosFleet(
  label: string,
  simulator: SimulatorOptions & { readonly rateLimit: { readonly limit: number; readonly windowMs: number } },
  scanner: SecretScanner,
  cleanup: CleanupSteps,
  overrides: Pick<ChaosRunOptions, 'redisUrl' | 'sink'> = {},
): Promise<ChaosFleet> {
  const fleet = await startFleet(label, simulator, cleanup);
  scanner.addSimulator(fleet.sim);
  const rateLimit = { requests: simulator.rateLimit.limit, perMs: simulator.rateLimit.windowMs };
  const config = chaosRunConfig(fleet.sim, { prefix: fleet.ws.prefix, dbPath: fleet.ws.dbPath, every: '1s', pageSize: 50, rateLimit, ...overrides });
  return { ...fleet, config };
}

/** A restart scenario under way: its fleet, the one worker's config, the worker and its URL, and the calls upstream. */
export interface OneWorkerRun extends Fleet {
  readonly configPath: string;
  readonly worker: RunProcess;
  readonly url: string;
  readonly expected: number;
}

/**
 * Starts what the service-restart scenarios share: three businesses of 6,000 calls at 15 requests a
 * second (the simulator's credentials registered with `scanner`) and one `run` worker polling every
 * second, pages of 50, with `overrides` (a private Redis, another sink); stops go onto `cleanup`.
 */
export async function startOneWorker(
  label: string,
  seed: number,
  scanner: SecretScanner,
  cleanup: CleanupSteps,
  overrides: Pick<ChaosRunOptions, 'redisUrl' | 'sink'>,
): Promise<OneWorkerRun> {
  const simulator = { businesses: 3, calls: 6_000, voicemails: 60, numbers: 4, seed, rateLimit: { limit: 15, windowMs: 1000 } };
  const { config, ...fleet } = await startChaosFleet(label, simulator, scanner, cleanup, overrides);
  const configPath = fleet.ws.writeConfig(config);
  const worker = spawnRun(configPath);
  fleet.processes.push(worker);
  return { ...fleet, configPath, worker, url: await worker.url, expected: upstreamCalls(fleet.sim) };
}

export { spawnRun, startFleet, stopAll, upstreamCalls, waitFor, workspace, type RunProcess } from '../../integration/worker/harness.js';
