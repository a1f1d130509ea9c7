import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { SinkConfig } from '../../connectors/registry.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig } from '../support/bench-config.js';
import { dropSchema, rawPostgresBaseline } from '../support/raw-postgres-baseline.js';
import { rawSqliteBaseline } from './raw-sqlite-baseline.js';
import { firstBusiness, rawWalk } from '../support/raw-walk.js';
import { fixed, perSecond, verdict, type BenchContext, type BenchRow } from './result.js';
import { startSimulatorChild, type SimulatorChild } from '../support/simulator-child.js';

const PAGE_SIZE = 500;

type Target = 'sqlite' | 'postgres';

interface Round {
  readonly pipeline: number;
  readonly baseline: number;
}

/**
 * Figures 3 and 4: records per second from the simulator (a child process, limits off) into the
 * sink through `runBackfill`, against the raw baseline over the same pages in the same run.
 * Rounds alternate baseline and pipeline; the best of each is compared, which discounts a noisy
 * neighbour hitting one side only. Two rounds in quick mode too: the warm-up walk runs the
 * baseline's own read code, so a single round set a warm baseline against a cold pipeline.
 */
export async function benchThroughput(ctx: BenchContext): Promise<BenchRow[]> {
  const calls = ctx.quick ? 40_000 : 200_000;
  const rounds = 2;
  ctx.log(`throughput: starting a simulator child with ${calls} calls`);
  const sim = await startSimulatorChild({ calls, seed: 3 });
  try {
    // The first walk renders every record; later walks are served from the simulator's cache.
    await rawWalk(firstBusiness(sim, PAGE_SIZE), () => undefined);
    const rows: BenchRow[] = [];
    for (const target of ['sqlite', 'postgres'] as const) rows.push(await measureTarget(ctx, sim, target, calls, rounds));
    return rows;
  } finally {
    await sim.close();
  }
}

async function measureTarget(ctx: BenchContext, sim: SimulatorChild, target: Target, calls: number, rounds: number): Promise<BenchRow> {
  const results: Round[] = [];
  for (let round = 0; round < rounds; round++) {
    const baseline = await runBaseline(ctx, sim, target, round);
    const pipeline = await runPipeline(ctx, sim, target, round, calls);
    ctx.log(`throughput ${target} round ${round + 1}: pipeline ${perSecond(pipeline)}, baseline ${perSecond(baseline)}`);
    results.push({ pipeline, baseline });
  }
  const pipeline = Math.max(...results.map((r) => r.pipeline));
  const baseline = Math.max(...results.map((r) => r.baseline));
  const ratio = pipeline / baseline;
  const floor = target === 'sqlite' ? 0.8 : 0.7;
  return {
    figure: `${target === 'sqlite' ? '3' : '4'}. throughput, ${target === 'sqlite' ? 'SQLite' : 'Postgres'} (${calls / 1000}k calls)`,
    measured: `${perSecond(pipeline)} (${fixed(ratio)} of baseline)`,
    target: `≥ ${floor} of baseline`,
    baseline: perSecond(baseline),
    status: verdict(ratio >= floor),
    details: { calls, rounds: results, pipeline, baseline, ratio },
  };
}

async function runBaseline(ctx: BenchContext, sim: SimulatorChild, target: Target, round: number): Promise<number> {
  const source = firstBusiness(sim, PAGE_SIZE);
  if (target === 'sqlite') {
    const run = await rawSqliteBaseline(join(ctx.tmpDir, `raw-${round}.db`), source);
    return run.records / run.seconds;
  }
  const schema = benchSchema('raw');
  try {
    const run = await rawPostgresBaseline(ctx.postgresUrl, schema, source);
    return run.records / run.seconds;
  } finally {
    await dropSchema(ctx.postgresUrl, schema);
  }
}

async function runPipeline(ctx: BenchContext, sim: SimulatorChild, target: Target, round: number, calls: number): Promise<number> {
  const schema = benchSchema('sink');
  const sink: SinkConfig =
    target === 'sqlite' ? { type: 'sqlite', path: join(ctx.tmpDir, `sink-${round}.db`) } : { type: 'postgres', url: ctx.postgresUrl, schema };
  try {
    const run = await backfillOnce(benchConfig(sim, sink, { streams: ['calls'], rateLimit: false, pageSize: PAGE_SIZE, concurrency: 1 }));
    if (run.failures.length > 0 || run.records !== calls) throw new Error(`pipeline run synced ${run.records} of ${calls}: ${run.failures.join('; ')}`);
    return run.records / run.seconds;
  } finally {
    if (target === 'postgres') await dropSchema(ctx.postgresUrl, schema);
  }
}

/** A Postgres schema of this run only. */
export function benchSchema(label: string): string {
  return `t_bench_${label}_${randomBytes(4).toString('hex')}`;
}
