import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NO_HOSTILE } from '../../simulator/hostile.js';
import { startSimulator, type Simulator } from '../../simulator/index.js';
import { redisUrl } from '../integration/services.js';
import { configDocument } from '../integration/support/backfill-harness.js';
import { spawnCli, type CliProcess } from '../integration/support/cli-process.js';
import { expectExact, figuresOf } from './support/figures.js';
import { recordRow } from './support/results.js';
import { SecretScanner } from './support/secret-scanner.js';
import { chaosRunConfig, collectLogs, readStatus, spawnRun, stopAll, waitFor, waitForExactSqlite, workspace, type RunProcess } from './support/run-harness.js';
import { sleep } from './support/seeded.js';
import { countRows, diffSqlite } from './support/sqlite-figures.js';

// Bounds small enough for a test, the defaults' roles unchanged (docs/configuration.md).
const TIMEOUT_MS = 2_000;
const MAX_WAIT_MS = 2_000;
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const RSS_LIMIT_MB = 300;
const scanner = new SecretScanner();
let simulator: Simulator;
let directory: string;
let configPath: string;
let databasePath: string;

beforeAll(async () => {
  simulator = await startSimulator({ businesses: 1, calls: 300, voicemails: 20, numbers: 2, seed: 1_717, rateLimit: { limit: 100, windowMs: 1000 } });
  scanner.addSimulator(simulator);
  directory = mkdtempSync(join(tmpdir(), 'callsync-chaos-bounds-'));
});

afterAll(async () => {
  await simulator.close();
});

beforeEach((context) => {
  simulator.setHostile(NO_HOSTILE);
  simulator.setFaults({ stormUntilMs: 0 });
  simulator.resetCounters();
  databasePath = join(directory, `${context.task.id}.db`);
  configPath = join(directory, `${context.task.id}.json`);
  const base = configDocument(simulator, databasePath, { pageSize: 100, rateLimit: { requests: 100, perMs: 1000 } });
  // Two attempts: a hostile answer fails the run quickly instead of being retried a dozen times.
  const upstream = {
    ...base.upstream,
    timeoutMs: TIMEOUT_MS,
    maxWaitMs: MAX_WAIT_MS,
    maxBodyBytes: MAX_BODY_BYTES,
    retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 50 },
  };
  writeFileSync(configPath, JSON.stringify({ ...base, upstream }));
});

interface Finished {
  readonly code: number | null;
  readonly stderr: string;
  readonly stdout: string;
  readonly seconds: number;
  readonly peakRssMb: number;
}

/** Peak resident memory of a live process (VmHWM), 0 once it has exited. */
function peakRssMb(pid: number | undefined): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** One `callsync backfill`, its duration and its peak RSS sampled while it runs. */
async function backfill(label: string, ...args: string[]): Promise<Finished> {
  const started = Date.now();
  const cli: CliProcess = spawnCli(['backfill', '--config', configPath, '--no-progress', ...args]);
  let peak = 0;
  while (cli.child.exitCode === null && cli.child.signalCode === null) {
    peak = Math.max(peak, peakRssMb(cli.child.pid));
    await sleep(20);
  }
  const { code } = await cli.exited;
  scanner.collect(`${label} stdout`, cli.stdout());
  scanner.collect(`${label} stderr`, cli.stderr());
  return { code, stderr: cli.stderr(), stdout: cli.stdout(), seconds: (Date.now() - started) / 1000, peakRssMb: peak };
}

function lines(text: string, pattern: RegExp): number {
  return text.split('\n').filter((line) => pattern.test(line)).length;
}

function note(run: Finished, what: string): string {
  return `${what}; exit ${String(run.code)} in ${run.seconds.toFixed(1)} s, peak RSS ${run.peakRssMb.toFixed(0)} MB`;
}

describe('scenario 17: an upstream pushing callsync past its bounds', () => {
  it('a 1 GiB body (chunked, no length) is cut at upstream.maxBodyBytes: exit 1 naming the bound, RSS under 300 MB', async () => {
    simulator.setHostile({ hugeBodyBytes: 1024 ** 3 });
    const run = await backfill('huge body');
    const { faults } = simulator.counters();
    recordRow({
      scenario: '17 a 1 GiB body',
      faults: { hugeBody: faults.hugeBodies },
      restarts: 0,
      expected: 0,
      found: 0,
      missing: 0,
      duplicated: 0,
      note: note(run, `${(faults.hugeBodyBytesWritten / 1024 ** 2).toFixed(0)} MiB sent before the cut`),
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/business biz-1 failed: .*upstream\.maxBodyBytes \(8388608 bytes\)/);
    expect(faults.hugeBodies).toBeGreaterThan(0);
    // Socket buffers let the server get ahead of the cut, never near the whole GiB.
    expect(faults.hugeBodyBytesWritten).toBeLessThan(256 * 1024 ** 2);
    expect(run.peakRssMb).toBeLessThan(RSS_LIMIT_MB);
  });

  it('a body trickling one byte a second ends at upstream.timeoutMs: exit 1 naming the bound', async () => {
    simulator.setHostile({ trickleMs: 1000 });
    // One stream: each of a business's streams would wait out the same two deadlines in turn.
    const run = await backfill('trickle', '--stream', 'calls');
    recordRow({
      scenario: '17 a body trickling 1 byte/s',
      faults: { trickled: simulator.counters().faults.trickled },
      restarts: 0,
      expected: 0,
      found: 0,
      missing: 0,
      duplicated: 0,
      note: note(run, `timeoutMs ${TIMEOUT_MS}, 2 attempts`),
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/business biz-1 failed: .*within 2000 ms \(upstream\.timeoutMs\)/);
    // The trickle never ends, so only the deadline ended each attempt; two attempts, then the business failed.
    const { trickled } = simulator.counters().faults;
    expect(trickled).toBeGreaterThanOrEqual(1);
    expect(trickled).toBeLessThanOrEqual(2);
  });

  it('Retry-After: 999999999 on a 429 storm waits upstream.maxWaitMs, warns once per wait, and the run ends exact', async () => {
    simulator.setHostile({ retryAfter429: '999999999' });
    // The storm lasts until callsync has met it, then half a second more: the start-up time of the
    // process does not decide whether there is a storm at all.
    simulator.setFaults({ stormUntilMs: Date.now() + 600_000 });
    const running = backfill('retry-after');
    while (simulator.counters().faults.storm429 === 0) await sleep(10);
    simulator.setFaults({ stormUntilMs: Date.now() + 500 });
    const run = await running;
    scanner.collectSqlite('retry-after sink', databasePath);
    const diffs = diffSqlite(databasePath, simulator);
    const { faults } = simulator.counters();
    const warned = lines(run.stderr, /the server asked to wait 999999999 s \([^)]+\); waiting upstream\.maxWaitMs \(2 s\) instead/);
    recordRow({
      scenario: '17 Retry-After: 999999999 on a 429 storm',
      faults: { storm429: faults.storm429 },
      restarts: 0,
      ...figuresOf(diffs),
      note: note(run, `${warned} capped waits warned`),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(faults.storm429).toBeGreaterThan(0);
    expect(warned).toBeGreaterThan(0);
    expect(warned).toBeLessThanOrEqual(faults.storm429);
    expectExact(diffs);
  });

  it('X-RateLimit-Remaining 0 with a reset in the year 3000 waits upstream.maxWaitMs per window, logs no poll, and ends exact', async () => {
    simulator.setHostile({ exhaustedUntilSec: 32_503_680_000 });
    const run = await backfill('year 3000');
    scanner.collectSqlite('year 3000 sink', databasePath);
    const diffs = diffSqlite(databasePath, simulator);
    const requests = simulator.counters().businesses['biz-1']?.apiKeyRequests ?? 0;
    const logged = run.stderr.split('\n').filter((line) => line.length > 0).length;
    recordRow({
      scenario: '17 rate limit reset in the year 3000',
      faults: { exhausted: requests },
      restarts: 0,
      ...figuresOf(diffs),
      note: note(run, `${requests} requests, ${logged} log lines`),
    });
    expect(run.code, run.stderr).toBe(0);
    // Each wait is the cap, said once per answer that asked for the year 3000 (v1 and v2 alike);
    // the log has at most a line or two per request, not one per poll.
    const capped = lines(run.stderr, /the server asked to wait \d+ s \(X-RateLimit-Reset\); waiting upstream\.maxWaitMs \(2 s\) instead/);
    const { apiKeyRequests = 0, v2Requests = 0 } = simulator.counters().businesses['biz-1'] ?? {};
    expect(capped).toBeGreaterThan(0);
    expect(capped).toBeLessThanOrEqual(apiKeyRequests + v2Requests);
    expect(logged).toBeLessThanOrEqual(2 * requests + 5);
    expectExact(diffs);
  });

  it('in run, a reset in the year 3000 shows waiting_for_budget; SIGKILLed and started again once the server is sane, it recovers within maxWaitMs and ends exact', async () => {
    const ws = workspace('chaos-bounds');
    const processes: RunProcess[] = [];
    try {
      const base = chaosRunConfig(simulator, {
        prefix: ws.prefix,
        dbPath: ws.dbPath,
        every: '1s',
        pageSize: 100,
        rateLimit: { requests: 100, perMs: 1000 },
        worker: { maxBudgetWaitMs: 0 },
      });
      const upstream = { ...(base.upstream as Record<string, unknown>), maxWaitMs: MAX_WAIT_MS };
      const configPath = ws.writeConfig({ ...base, upstream });
      simulator.setHostile({ exhaustedUntilSec: 32_503_680_000 });
      processes.push(spawnRun(configPath));
      const url = await processes[0]!.url;
      await waitFor(
        'waiting_for_budget on /status',
        async () => {
          const business = (await readStatus(url)).businesses[0];
          return business?.streams.some((stream) => stream.state === 'waiting_for_budget') === true ? true : undefined;
        },
        30_000,
        100,
      );
      await scanner.collectHttp('blocked worker', url);
      // The block is in Redis now; a restart must not make it last any longer than the cap.
      processes[0]!.child.kill('SIGKILL');
      await processes[0]!.exited;
      const killedAt = Date.now();
      const redis = new Redis(redisUrl);
      const bucket = await redis.hgetall(`${ws.prefix}:ratelimit:biz-1`).finally(() => redis.quit());
      expect(Number(bucket.we)).toBeGreaterThan(0);
      expect(Math.max(Number(bucket.bu ?? 0), Number(bucket.we)) - killedAt).toBeLessThanOrEqual(MAX_WAIT_MS);
      simulator.setHostile(NO_HOSTILE);
      const restarted = Date.now();
      processes.push(spawnRun(configPath));
      const truth = simulator.truth('biz-1').calls.length;
      await waitFor('every call stored after the restart', () => (countRows(ws.dbPath, 'calls') >= truth ? true : undefined), 60_000, 100);
      const recoverySeconds = (Date.now() - restarted) / 1000;
      const diffs = await waitForExactSqlite(ws.dbPath, simulator, 30_000, 500);
      await stopAll(processes);
      collectLogs(scanner, 'year 3000 run', processes);
      scanner.collectSqlite('year 3000 run sink', ws.dbPath);
      const logLines = processes.reduce((sum, process) => sum + process.logs.length, 0);
      recordRow({
        scenario: '17 rate limit reset in the year 3000, under run',
        faults: { exhausted: 1 },
        restarts: 1,
        ...figuresOf(diffs),
        note: `all stored ${recoverySeconds.toFixed(1)} s after the restart (maxWaitMs 2 s); ${logLines} log lines`,
      });
      expectExact(diffs);
    } finally {
      await stopAll(processes);
      await ws.cleanup();
    }
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('hostile-bounds').leaks).toEqual([]);
  });
});
