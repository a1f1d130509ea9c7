import { join } from 'node:path';
import { Redis } from 'ioredis';
import { buildCli } from '../integration/support/cli-build.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig } from '../support/bench-config.js';
import { cpuSeconds } from './process-cpu.js';
import { commandstatsTotal, PURPOSES, startRedisCostMeter, type CostBreakdown, type RedisCostMeter } from '../support/redis-cost.js';
import { fixed, verdict, type BenchContext, type BenchRow } from './result.js';
import { startRunChild, startSchedulerSim, type RunChild, type SchedulerSim } from './scheduler-processes.js';
import { alive, dropRedisPrefix, sleep, writeRunConfig } from './worker.js';

const STREAMS = ['calls', 'voicemails', 'numbers'];
const INTERVAL_MS = 60_000;
/** Prometheus's default scrape interval: `/metrics` is read this often during the window. */
const SCRAPE_MS = 15_000;
/** Targets of issue 22 for one idle poll (one business × stream, nothing new). */
const MAX_COMMANDS_PER_POLL = 30;
const MAX_CPU_MS_PER_POLL = 1;
const MAX_FIRST_PASS_S = { 1000: 10, 10000: 60 } as Readonly<Record<number, number>>;
/** Spawn until the worker takes jobs: scheduler upserts (sync and reconciliation) included. */
const MAX_STARTUP_S = 30;

interface Size {
  readonly businesses: number;
  /** Whole scheduling intervals the steady window lasts. */
  readonly intervals: number;
  /** Attribute every command with MONITOR (costs the bench CPU; off at 10,000). */
  readonly monitor: boolean;
  /** `callsync run` processes, one measurement each over the same synced businesses (1, then 2). */
  readonly workers: readonly number[];
  /** `worker.concurrency` of each process. @defaultValue the config default (8) */
  readonly concurrency?: number;
}

interface Window {
  readonly polls: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly serverCommands: number;
  readonly requests: number;
  readonly scrapes: number;
  readonly scrapeMs: number[];
  readonly breakdown: CostBreakdown | undefined;
}

/** `/metrics` every {@link SCRAPE_MS} until `untilMs`, as one Prometheus would; the meter knows when. */
async function scrapeUntil(run: RunChild | undefined, meter: RedisCostMeter | undefined, untilMs: number, took: number[]): Promise<void> {
  while (Date.now() + SCRAPE_MS <= untilMs) {
    await sleep(SCRAPE_MS);
    const url = run?.url();
    if (url === undefined) continue;
    meter?.beginScrape();
    const started = performance.now();
    await fetch(`${url}/metrics`).then((response) => response.text());
    took.push(performance.now() - started);
    // The scrape's reads have reached Redis before its answer came back.
    meter?.endScrape();
  }
}

/** Whole intervals of steady polling: every scheduler fires once per interval, so nothing is sampled in part. */
async function measureWindow(ctx: BenchContext, sim: SchedulerSim, runs: readonly RunChild[], prefix: string, size: Size): Promise<Window> {
  const redis = new Redis(ctx.redisUrl, { lazyConnect: true });
  await redis.connect();
  try {
    const meter = size.monitor ? await startRedisCostMeter(ctx.redisUrl, prefix) : undefined;
    const pids = runs.map((run) => run.process.pid ?? 0);
    const cpu = (): number => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const polls = (): number => runs.reduce((sum, run) => sum + run.syncsDone(), 0);
    const before = { at: Date.now(), cpu: cpu(), commands: await commandstatsTotal(redis), counters: await sim.counters(), polls: polls() };
    const scrapeMs: number[] = [];
    await scrapeUntil(runs[0], meter, before.at + size.intervals * INTERVAL_MS, scrapeMs);
    await sleep(Math.max(0, before.at + size.intervals * INTERVAL_MS - Date.now()));
    const after = { at: Date.now(), cpu: cpu(), commands: await commandstatsTotal(redis), counters: await sim.counters(), polls: polls() };
    const breakdown = await meter?.stop();
    if (alive(runs.map((run) => run.process)) < runs.length) throw new Error('a run process exited during the window');
    return {
      polls: after.polls - before.polls,
      seconds: (after.at - before.at) / 1000,
      cpuSeconds: after.cpu - before.cpu,
      serverCommands: after.commands - before.commands,
      requests: after.counters.apiKeyRequests + after.counters.v2Requests - before.counters.apiKeyRequests - before.counters.v2Requests,
      scrapes: scrapeMs.length,
      scrapeMs,
      breakdown,
    };
  } finally {
    redis.disconnect();
  }
}

function perPoll(window: Window): Record<string, unknown> {
  const polls = Math.max(1, window.polls);
  const byPurpose =
    window.breakdown === undefined
      ? undefined
      : Object.fromEntries(
          PURPOSES.map((p) => {
            const cost = window.breakdown?.[p];
            return [p, { commands: (cost?.commands ?? 0) / polls, roundTrips: (cost?.roundTrips ?? 0) / polls, byCommand: cost?.byCommand ?? {} }];
          }),
        );
  const attributed = window.breakdown === undefined ? undefined : PURPOSES.reduce((sum, p) => sum + (window.breakdown?.[p].commands ?? 0), 0);
  const roundTrips = window.breakdown === undefined ? undefined : PURPOSES.reduce((sum, p) => sum + (window.breakdown?.[p].roundTrips ?? 0), 0);
  return {
    polls: window.polls,
    windowSeconds: window.seconds,
    jobsPerSecond: window.polls / window.seconds,
    cpuCores: window.cpuSeconds / window.seconds,
    cpuMsPerPoll: (window.cpuSeconds * 1000) / polls,
    serverCommandsPerPoll: window.serverCommands / polls,
    commandsPerPoll: attributed === undefined ? undefined : attributed / polls,
    roundTripsPerPoll: roundTrips === undefined ? undefined : roundTrips / polls,
    requestsPerPoll: window.requests / polls,
    scrapes: window.scrapes,
    scrapeMs: window.scrapeMs.map((ms) => Math.round(ms)),
    byPurpose,
  };
}

interface SyncedBusinesses {
  readonly sim: SchedulerSim;
  readonly sink: { readonly type: 'sqlite'; readonly path: string };
  readonly backfillSeconds: number;
}

const RATE_LIMIT = { requests: 60, perMs: 60_000 };

/** `workers` fresh `callsync run` processes (a Redis prefix of their own) over the synced businesses: first pass, then whole intervals. */
async function measureWorkers(ctx: BenchContext, main: string, synced: SyncedBusinesses, size: Size, workers: number): Promise<BenchRow[]> {
  const n = size.businesses;
  const label = `${n.toLocaleString('en-US')} businesses${workers > 1 ? `, ${workers} workers` : ''}`;
  const { sim, sink } = synced;
  const setup = await writeRunConfig(ctx.tmpDir, `scheduler-${n}-${workers}`, sim, sink, {
    streams: STREAMS,
    rateLimit: RATE_LIMIT,
    redisUrl: ctx.redisUrl,
    every: `${INTERVAL_MS / 1000}s`,
    concurrency: 16,
    logLevel: 'info',
    ...(size.concurrency === undefined ? {} : { worker: { concurrency: size.concurrency } }),
  });
  try {
    await sim.reset();
    const started = Date.now();
    const runs = Array.from({ length: workers }, () => startRunChild(main, setup.file));
    try {
      let firstRequestAt: number | undefined;
      let all = false;
      const deadline = started + 3 * INTERVAL_MS;
      while (!all && Date.now() < deadline && alive(runs.map((run) => run.process)) === workers) {
        const counters = await sim.counters();
        if (firstRequestAt === undefined && counters.apiKeyRequests + counters.v2Requests > 0) firstRequestAt = Date.now();
        all = counters.polledBusinesses >= n;
        if (!all) await sleep(100);
      }
      const firstPassSeconds = (Date.now() - started) / 1000;
      const afterFirstSeconds = (Date.now() - (firstRequestAt ?? started)) / 1000;
      // Start-up: spawn until every process took jobs (its schedulers reconciled).
      const startupSeconds = Math.max(...runs.map((run) => run.startupMs() ?? Number.NaN)) / 1000;
      ctx.log(
        `scheduler: ${label}: started in ${fixed(startupSeconds, 1)} s, all polled: ${String(all)} after ${fixed(firstPassSeconds, 1)} s; measuring ${size.intervals} whole interval(s)`,
      );
      const window = await measureWindow(ctx, sim, runs, setup.redisPrefix, size);
      const cost = perPoll(window);
      const cmds = Number(cost.commandsPerPoll ?? cost.serverCommandsPerPoll);
      const cpuMs = Number(cost.cpuMsPerPoll);
      const expected = n * STREAMS.length * size.intervals;
      const limit = MAX_FIRST_PASS_S[n] ?? 60;
      return [
        {
          figure: `6. scheduler, ${label} × 3 streams: first pass`,
          measured: `${all ? `all polled ${fixed(firstPassSeconds, 1)} s after spawn (${fixed(afterFirstSeconds, 1)} s after 1st request)` : `not all polled within ${(3 * INTERVAL_MS) / 1000} s`}; start-up ${fixed(startupSeconds, 1)} s`,
          target: `all within ${limit} s; start-up ≤ ${MAX_STARTUP_S} s`,
          status: verdict(all && firstPassSeconds <= limit && startupSeconds <= MAX_STARTUP_S),
          details: { businesses: n, workers, polled: all, startupSeconds, firstPassSeconds, afterFirstSeconds, backfillSeconds: synced.backfillSeconds },
        },
        {
          figure: `6. idle poll cost, ${label}`,
          measured: `${fixed(cmds, 1)} Redis cmds${cost.roundTripsPerPoll === undefined ? '' : ` (${fixed(Number(cost.roundTripsPerPoll), 1)} round trips)`}, ${fixed(cpuMs, 2)} ms CPU, ${fixed(Number(cost.requestsPerPoll), 2)} requests per poll; ${fixed(window.polls / expected, 3)} of the polls a ${INTERVAL_MS / 1000} s schedule asks for (${fixed(Number(cost.jobsPerSecond), 1)} streams/s), ${fixed(Number(cost.cpuCores) * 100, 1)} % of a core`,
          target: `≤ ${MAX_COMMANDS_PER_POLL} cmds, ≤ ${MAX_CPU_MS_PER_POLL} ms; every stream every interval`,
          status: verdict(cmds <= MAX_COMMANDS_PER_POLL && cpuMs <= MAX_CPU_MS_PER_POLL && window.polls >= 0.98 * expected),
          details: { businesses: n, workers, intervals: size.intervals, expectedPolls: expected, ...cost },
        },
      ];
    } finally {
      await Promise.all(runs.map((run) => run.stop()));
    }
  } finally {
    await dropRedisPrefix(ctx.redisUrl, setup.redisPrefix);
  }
}

async function benchSize(ctx: BenchContext, main: string, size: Size): Promise<BenchRow[]> {
  const n = size.businesses;
  const label = n.toLocaleString('en-US');
  ctx.log(`scheduler: simulator child with ${label} businesses`);
  const sim = await startSchedulerSim(n);
  try {
    const sink = { type: 'sqlite', path: join(ctx.tmpDir, `scheduler-${n}.db`) } as const;
    ctx.log(`scheduler: backfilling ${label} businesses first so that nothing is new`);
    const backfill = await backfillOnce(benchConfig(sim, sink, { streams: STREAMS, rateLimit: RATE_LIMIT, concurrency: 16 }));
    if (backfill.failures.length > 0) throw new Error(`backfill failed: ${backfill.failures[0] ?? ''}`);
    const rows: BenchRow[] = [];
    for (const workers of size.workers) rows.push(...(await measureWorkers(ctx, main, { sim, sink, backfillSeconds: backfill.seconds }, size, workers)));
    return rows;
  } finally {
    await sim.close();
  }
}

/**
 * Figure 6: `callsync run` (one process; at 10,000 also two) over already-synced businesses × calls, voicemails, numbers
 * (nothing new upstream; the simulator a child process with the documented 60 requests a
 * minute), schedule every 60 s. Time until every business × stream was polled, then the cost of
 * an idle poll over whole intervals: Redis commands (Lua's inner ones included) and round trips
 * by purpose, worker CPU, upstream requests, with `/metrics` scraped every 15 s, and the share
 * of the polls the schedule asks for that were made in the window.
 */
export async function benchScheduler(ctx: BenchContext): Promise<BenchRow[]> {
  // At 10,000 a job (three streams in turn) lasts ~0.1 s on a loaded machine and 167 are due a second: 32 in flight.
  const sizes: Size[] = ctx.quick
    ? [{ businesses: 1000, intervals: 1, monitor: true, workers: [1] }]
    : [
        { businesses: 1000, intervals: 2, monitor: true, workers: [1] },
        { businesses: 10_000, intervals: 1, monitor: false, workers: [1, 2], concurrency: 32 },
      ];
  const build = await buildCli();
  try {
    const rows: BenchRow[] = [];
    for (const size of sizes) rows.push(...(await benchSize(ctx, build.main, size)));
    return rows;
  } finally {
    build.remove();
  }
}
