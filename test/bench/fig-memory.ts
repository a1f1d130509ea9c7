import { join } from 'node:path';
import { buildCli } from '../integration/support/cli-build.js';
import { firstLine, spawnNode, stopChild } from '../support/child-process.js';
import { megabytes, verdict, type BenchContext, type BenchRow } from './result.js';
import { startSimulatorChild } from '../support/simulator-child.js';

interface MemoryRun {
  readonly records: number;
  readonly seconds: number;
  readonly failures: readonly string[];
  readonly peakRss: number;
  readonly vmHwm?: number;
  readonly startRss: number;
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

/**
 * Figure 5: peak RSS of a sync process (a child of its own) writing N calls to SQLite, the
 * simulator in yet another child, so only the sync's memory is counted. The child runs compiled
 * JavaScript, as `callsync` runs from `dist/`: under `--import tsx` the loader thread, the
 * compiled sources and their source maps added about 60 MB that no user's process has.
 */
export async function benchMemory(ctx: BenchContext): Promise<BenchRow[]> {
  const sizes = ctx.quick ? [100_000, 300_000] : [100_000, 300_000, 1_000_000];
  const runs: { calls: number; run: MemoryRun }[] = [];
  const build = await buildCli(['src', 'connectors', 'simulator', 'test/bench', 'test/support']);
  try {
    for (const calls of sizes) {
      ctx.log(`memory: syncing ${calls} calls in a child process`);
      runs.push({ calls, run: await measure(ctx, calls, join(build.root, 'test/bench/memory-child.js')) });
    }
  } finally {
    build.remove();
  }
  const peaks = runs.map(({ run }) => Math.max(run.peakRss, run.vmHwm ?? 0));
  const largest = runs[runs.length - 1]!.run;
  const flat = largest.secondHalfMax <= FLAT_FACTOR * largest.firstHalfMax;
  return runs.map(({ calls, run }, index) => {
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
}

async function measure(ctx: BenchContext, calls: number, childScript: string): Promise<MemoryRun> {
  const sim = await startSimulatorChild({ calls, seed: 5 });
  try {
    const upstream = JSON.stringify({ baseUrl: sim.baseUrl, v2BaseUrl: sim.v2BaseUrl, recordingsBaseUrl: sim.recordingsBaseUrl, businesses: sim.businesses });
    const child = spawnNode(childScript, [upstream, join(ctx.tmpDir, `memory-${calls}.db`)]);
    try {
      return JSON.parse(await firstLine(child, 600_000)) as MemoryRun;
    } finally {
      await stopChild(child);
    }
  } finally {
    await sim.close();
  }
}
