import { join } from 'node:path';
import { buildCli, type CliBuild } from '../integration/support/cli-build.js';
import { dropSchema } from '../support/raw-postgres-baseline.js';
import { benchSchema } from './fig-throughput.js';
import { measureInChild, peakOf, type MemoryChildReport } from './memory-child-spawn.js';
import { megabytes, verdict, type BenchContext, type BenchRow } from './result.js';
import { startSimulatorChild } from '../support/simulator-child.js';

interface MemoryRun extends MemoryChildReport {
  readonly firstHalfMax: number;
  readonly secondHalfMax: number;
}

const CEILING = 250 * 1024 * 1024;
/**
 * Within the largest run, the second half may peak this much above the first and still count as
 * flat. Across sizes the peak rises at first (V8 grows its heap lazily) and then levels off, so
 * the runs' peaks are reported side by side rather than compared with a factor.
 */
const FLAT_FACTOR = 1.1;

/** Calls of figure 5's Postgres run: the issue's 300k-call backfill, at the sink's default flushes. */
const POSTGRES_CALLS = 300_000;

/**
 * Figure 5: peak RSS of a sync process (a child of its own) writing N calls to SQLite, the
 * simulator in yet another child, so only the sync's memory is counted. The child runs compiled
 * JavaScript, as `callsync` runs from `dist/`: under `--import tsx` the loader thread, the
 * compiled sources and their source maps added about 60 MB that no user's process has.
 */
export async function benchMemory(ctx: BenchContext): Promise<BenchRow[]> {
  const sizes = ctx.quick ? [100_000, 300_000] : [100_000, 300_000, 1_000_000];
  const runs: { calls: number; run: MemoryRun }[] = [];
  let postgres: MemoryRun | undefined;
  const build = await buildCli(['src', 'connectors', 'simulator', 'test/bench', 'test/support']);
  try {
    for (const calls of sizes) {
      ctx.log(`memory: syncing ${calls} calls in a child process`);
      runs.push({ calls, run: await measure(ctx, calls, build) });
    }
    ctx.log(`memory: syncing ${POSTGRES_CALLS} calls into Postgres (flushes of 5,000 by COPY) in a child process`);
    postgres = await measurePostgres(ctx, build);
  } finally {
    build.remove();
  }
  const peaks = runs.map(({ run }) => peakOf(run));
  const largest = runs[runs.length - 1]!.run;
  const flat = largest.secondHalfMax <= FLAT_FACTOR * largest.firstHalfMax;
  const sqliteRows = runs.map(({ calls, run }, index) => {
    const peak = peaks[index]!;
    const synced = run.failures.length === 0 && run.records === calls;
    return {
      figure: `5. peak RSS, ${calls >= 1_000_000 ? `${calls / 1_000_000}M` : `${calls / 1000}k`} calls`,
      measured: `${megabytes(peak)} (at start ${megabytes(run.startRss)}; 2nd half ${megabytes(run.secondHalfMax)})`,
      target: '≤ 250 MB, flat',
      status: verdict(peak <= CEILING && flat && synced),
      details: { calls, ...run, peak, flat },
    };
  });
  if (postgres === undefined) return sqliteRows;
  const postgresPeak = peakOf(postgres);
  return [
    ...sqliteRows,
    {
      figure: '5. peak RSS, 300k calls into Postgres',
      measured: `${megabytes(postgresPeak)} (at start ${megabytes(postgres.startRss)}; 2nd half ${megabytes(postgres.secondHalfMax)})`,
      target: '≤ 250 MB',
      status: verdict(postgresPeak <= CEILING && postgres.failures.length === 0 && postgres.records === POSTGRES_CALLS),
      details: { calls: POSTGRES_CALLS, ...postgres, peak: postgresPeak },
    },
  ];
}

/** As `measure`, the sink Postgres at its defaults in a schema of this run only. */
async function measurePostgres(ctx: BenchContext, build: CliBuild): Promise<MemoryRun> {
  const schema = benchSchema('memory');
  try {
    return await measure(ctx, POSTGRES_CALLS, build, JSON.stringify({ type: 'postgres', url: ctx.postgresUrl, schema }));
  } finally {
    await dropSchema(ctx.postgresUrl, schema);
  }
}

async function measure(ctx: BenchContext, calls: number, build: CliBuild, sinkJson?: string): Promise<MemoryRun> {
  const sim = await startSimulatorChild({ calls, seed: 5 });
  try {
    const sqlitePath = join(ctx.tmpDir, `memory-${calls}.db`);
    return await measureInChild<MemoryRun>(build, 'memory-child', sim, sinkJson === undefined ? [sqlitePath] : ['', sinkJson]);
  } finally {
    await sim.close();
  }
}
