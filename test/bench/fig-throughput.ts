import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createSink, type SinkConfig } from '../../connectors/registry.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig } from '../support/bench-config.js';
import { DEFAULT_FLUSH } from '../../connectors/postgres/config.js';
import { dropSchema, rawPostgresBaseline, rawPostgresCopyBaseline } from '../support/raw-postgres-baseline.js';
import { rawSqliteBaseline } from './raw-sqlite-baseline.js';
import { firstBusiness, rawWalk } from '../support/raw-walk.js';
import { fixed, perSecond, verdict, type BenchContext, type BenchRow } from './result.js';
import { startSimulatorChild, type SimulatorChild } from '../support/simulator-child.js';
import { silentLogger } from '../support/silent-logger.js';
import { builtinStreams } from '../../src/source/streams/builtin-streams.js';

const PAGE_SIZE = 500;

type Target = 'sqlite' | 'postgres';

interface Round {
  readonly pipeline: number;
  readonly baseline: number;
}

/**
 * Figures 3 and 4: records per second from the simulator (a child process, limits off) into the
 * sink through `runBackfill`, against the raw baselines over the same pages in the same run.
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
    return [await measureSqlite(ctx, sim, calls, rounds), ...(await measurePostgres(ctx, sim, calls, rounds))];
  } finally {
    await sim.close();
  }
}

/** One round of figure 4: the pipeline and both hand-written Postgres paths, records per second. */
interface PostgresRound {
  readonly pipeline: number;
  /** COPY into a staging table plus one merge, at the sink's default flush size. */
  readonly copyMerge: number;
  /** COPY straight into the table at the same flush size: the ceiling of a first backfill, which the sink writes so. */
  readonly copyInsert: number;
  /** Today's one-page `INSERT` path: one `unnest` insert per page. */
  readonly onePageInsert: number;
  /** Seconds the sink's own set-up of a fresh schema takes (migrations, the tables, their indexes), timed alone. */
  readonly setup: number;
}

/**
 * Figure 4: the pipeline (the sink's default flushes; a first backfill, so by COPY into the table)
 * against COPY and one merge written by hand at the same flush size (≥ 0.8), and against the
 * one-page `INSERT` path the sink took before flushes (≥ 1.5×), all in the same run over the same
 * pages. COPY into the table by hand, the ceiling of this path, is measured beside them.
 */
async function measurePostgres(ctx: BenchContext, sim: SimulatorChild, calls: number, rounds: number): Promise<BenchRow[]> {
  const results: PostgresRound[] = [];
  for (let round = 0; round < rounds; round++) {
    const copyMerge = await runPostgresBaseline(ctx, sim, 'copy');
    const pipeline = await runPipeline(ctx, sim, 'postgres', round, calls);
    const onePageInsert = await runPostgresBaseline(ctx, sim, 'insert');
    const copyInsert = await runPostgresBaseline(ctx, sim, 'copy-insert');
    const setup = await postgresSetupSeconds(ctx);
    ctx.log(
      `throughput postgres round ${round + 1}: pipeline ${perSecond(pipeline)}, COPY + merge ${perSecond(copyMerge)}, one-page insert ${perSecond(onePageInsert)}, COPY into the table ${perSecond(copyInsert)}, sink set-up ${Math.round(setup * 1000)} ms`,
    );
    results.push({ pipeline, copyMerge, copyInsert, onePageInsert, setup });
  }
  const best = (side: Exclude<keyof PostgresRound, 'setup'>): number => Math.max(...results.map((r) => r[side]));
  const pipeline = best('pipeline');
  const copyMerge = best('copyMerge');
  const copyInsert = best('copyInsert');
  const onePageInsert = best('onePageInsert');
  const ratio = pipeline / copyMerge;
  const gain = pipeline / onePageInsert;
  // The pipeline's seconds include the sink's set-up of a fresh schema once (the baselines create
  // one table); its records/s without it is what each further record costs, the same in any run length.
  const setup = Math.min(...results.map((r) => r.setup));
  const steadyPipeline = calls / (calls / pipeline - setup);
  const steadyGain = steadyPipeline / onePageInsert;
  const details = {
    calls,
    flushRows: DEFAULT_FLUSH.maxRows,
    rounds: results,
    pipeline,
    copyMerge,
    copyInsert,
    onePageInsert,
    ratio,
    gain,
    setup,
    steadyPipeline,
    steadyGain,
  };
  return [
    {
      figure: `4. throughput, Postgres (${calls / 1000}k calls)`,
      measured: `${perSecond(pipeline)} (${fixed(ratio)} of COPY + merge; ${fixed(pipeline / copyInsert)} of COPY into the table, ${perSecond(copyInsert)})`,
      target: '≥ 0.8 of baseline',
      baseline: `${perSecond(copyMerge)} (COPY + merge, flushes of ${DEFAULT_FLUSH.maxRows.toLocaleString('en-US')})`,
      status: verdict(ratio >= 0.8),
      details,
    },
    {
      figure: '4b. Postgres against the one-page INSERT path',
      measured: `${fixed(gain)}× its records/s (${fixed(steadyGain)}× without the sink's ${Math.round(setup * 1000)} ms set-up)`,
      target: '≥ 1.5×',
      baseline: `${perSecond(onePageInsert)} (one unnest insert a page)`,
      status: verdict(gain >= 1.5),
      details,
    },
  ];
}

async function runPostgresBaseline(ctx: BenchContext, sim: SimulatorChild, path: 'copy' | 'copy-insert' | 'insert'): Promise<number> {
  const source = firstBusiness(sim, PAGE_SIZE);
  const schema = benchSchema('raw');
  try {
    const run =
      path === 'insert'
        ? await rawPostgresBaseline(ctx.postgresUrl, schema, source)
        : await rawPostgresCopyBaseline(ctx.postgresUrl, schema, source, DEFAULT_FLUSH.maxRows, path === 'copy' ? 'merge' : 'insert');
    return run.records / run.seconds;
  } finally {
    await dropSchema(ctx.postgresUrl, schema);
  }
}

/** The Postgres sink's set-up of a fresh schema alone, as the pipeline's run starts with it: seconds. */
async function postgresSetupSeconds(ctx: BenchContext): Promise<number> {
  const schema = benchSchema('setup');
  const calls = builtinStreams.get('calls');
  if (calls === undefined) throw new Error('no calls stream');
  try {
    const started = performance.now();
    const sink = await createSink({ type: 'postgres', url: ctx.postgresUrl, schema }, { logger: silentLogger() });
    await sink.prepare([calls.table]).finally(() => sink.close());
    return (performance.now() - started) / 1000;
  } finally {
    await dropSchema(ctx.postgresUrl, schema);
  }
}

/** Figure 3: the pipeline into SQLite against the hand-written prepared insert loop. */
async function measureSqlite(ctx: BenchContext, sim: SimulatorChild, calls: number, rounds: number): Promise<BenchRow> {
  const results: Round[] = [];
  for (let round = 0; round < rounds; round++) {
    const source = firstBusiness(sim, PAGE_SIZE);
    const raw = await rawSqliteBaseline(join(ctx.tmpDir, `raw-${round}.db`), source);
    const baseline = raw.records / raw.seconds;
    const pipeline = await runPipeline(ctx, sim, 'sqlite', round, calls);
    ctx.log(`throughput sqlite round ${round + 1}: pipeline ${perSecond(pipeline)}, baseline ${perSecond(baseline)}`);
    results.push({ pipeline, baseline });
  }
  const pipeline = Math.max(...results.map((r) => r.pipeline));
  const baseline = Math.max(...results.map((r) => r.baseline));
  const ratio = pipeline / baseline;
  return {
    figure: `3. throughput, SQLite (${calls / 1000}k calls)`,
    measured: `${perSecond(pipeline)} (${fixed(ratio)} of baseline)`,
    target: '≥ 0.8 of baseline',
    baseline: perSecond(baseline),
    status: verdict(ratio >= 0.8),
    details: { calls, rounds: results, pipeline, baseline, ratio },
  };
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
