import { join } from 'node:path';
import { buildCli } from '../integration/support/cli-build.js';
import { benchConfig } from '../support/bench-config.js';
import { firstBusiness, rawWalk } from '../support/raw-walk.js';
import { startSimulatorChild, type SimulatorChild } from '../support/simulator-child.js';
import { backfillOnce } from './backfill-once.js';
import { measureInChild, peakOf, type MemoryChildReport } from './memory-child-spawn.js';
import { cpuSeconds } from './process-cpu.js';
import { rawDuckDbBaseline } from './raw-duckdb-baseline.js';
import { fixed, megabytes, perSecond, verdict, type BenchContext, type BenchRow } from './result.js';

const PAGE_SIZE = 500;
const FLOOR = 0.8;
const CEILING = 250 * 1024 * 1024;

/**
 * Figure duckdb: records per second from the simulator (a child, limits off) into a DuckDB file
 * through `runBackfill`, against DuckDB's own bulk path on the same pages in the same run (the
 * appender into a staging table and one merge per page: `raw-duckdb-baseline.ts`). Rounds alternate
 * baseline and pipeline and the best of each is compared, as figures 3 and 4 do. Then the peak RSS
 * of a 300k-call backfill into DuckDB, in a child process of its own (`duckdb-memory-child.ts`),
 * with what V8's heap held at that peak.
 */
export async function benchDuckDb(ctx: BenchContext): Promise<BenchRow[]> {
  const calls = ctx.quick ? 40_000 : 200_000;
  ctx.log(`duckdb: starting a simulator child with ${calls} calls`);
  const sim = await startSimulatorChild({ calls, seed: 3 });
  // Records per CPU second of this process (DuckDB runs in it, the simulator does not), beside the
  // wall-clock rates: on a busy machine the wall ratio swings with scheduling, this one much less.
  const rounds: { pipeline: number; baseline: number; pipelinePerCpu: number; baselinePerCpu: number }[] = [];
  try {
    await rawWalk(firstBusiness(sim, PAGE_SIZE), () => undefined);
    for (let round = 0; round < 2; round++) {
      const rawCpu = cpuSeconds(process.pid);
      const raw = await rawDuckDbBaseline(join(ctx.tmpDir, `raw-${round}.duckdb`), firstBusiness(sim, PAGE_SIZE));
      const pipelineCpu = cpuSeconds(process.pid);
      const pipeline = await runPipeline(ctx, sim, round, calls);
      const endCpu = cpuSeconds(process.pid);
      ctx.log(`duckdb round ${round + 1}: pipeline ${perSecond(pipeline)}, baseline ${perSecond(raw.records / raw.seconds)}`);
      rounds.push({
        pipeline,
        baseline: raw.records / raw.seconds,
        pipelinePerCpu: calls / (endCpu - pipelineCpu),
        baselinePerCpu: raw.records / (pipelineCpu - rawCpu),
      });
    }
  } finally {
    await sim.close();
  }
  const pipeline = Math.max(...rounds.map((r) => r.pipeline));
  const baseline = Math.max(...rounds.map((r) => r.baseline));
  const ratio = pipeline / baseline;
  const cpuRatio = Math.max(...rounds.map((r) => r.pipelinePerCpu)) / Math.max(...rounds.map((r) => r.baselinePerCpu));
  const memory = await peakRss(ctx, 300_000);
  const peak = peakOf(memory);
  return [
    {
      figure: `duckdb. throughput, DuckDB (${calls / 1000}k calls)`,
      measured: `${perSecond(pipeline)} (${fixed(ratio)} of baseline; per CPU second ${fixed(cpuRatio)})`,
      target: `≥ ${FLOOR} of baseline`,
      baseline: perSecond(baseline),
      status: verdict(ratio >= FLOOR),
      details: { calls, rounds, pipeline, baseline, ratio, cpuRatio },
    },
    {
      figure: 'duckdb. peak RSS, 300k calls into DuckDB',
      measured: memory.atPeak === undefined ? megabytes(peak) : `${megabytes(peak)} (V8 heap ${megabytes(memory.atPeak.heapTotal)})`,
      target: '≤ 250 MB',
      status: verdict(peak <= CEILING && memory.failures.length === 0 && memory.records === 300_000),
      details: { ...memory, peak },
    },
  ];
}

async function runPipeline(ctx: BenchContext, sim: SimulatorChild, round: number, calls: number): Promise<number> {
  const sink = { type: 'duckdb', path: join(ctx.tmpDir, `sink-${round}.duckdb`) } as const;
  const run = await backfillOnce(benchConfig(sim, sink, { streams: ['calls'], rateLimit: false, pageSize: PAGE_SIZE, concurrency: 1 }));
  if (run.failures.length > 0 || run.records !== calls) throw new Error(`pipeline run synced ${run.records} of ${calls}: ${run.failures.join('; ')}`);
  return run.records / run.seconds;
}

interface MemoryRun extends MemoryChildReport {
  /** V8's heap and the buffers outside it at the sample of the peak: the rest of the peak is native (DuckDB, the allocators, the code). */
  readonly atPeak?: { readonly heapTotal: number; readonly heapUsed: number; readonly external: number };
}

async function peakRss(ctx: BenchContext, calls: number): Promise<MemoryRun> {
  ctx.log(`duckdb: syncing ${calls} calls into DuckDB in a child process`);
  const build = await buildCli(['src', 'connectors', 'simulator', 'test/bench', 'test/support']);
  const sim = await startSimulatorChild({ calls, seed: 5 });
  try {
    const sink = JSON.stringify({ type: 'duckdb', path: join(ctx.tmpDir, 'memory.duckdb') });
    return await measureInChild<MemoryRun>(build, 'duckdb-memory-child', sim, [sink]);
  } finally {
    await sim.close();
    build.remove();
  }
}
