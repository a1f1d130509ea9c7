import { join } from 'node:path';
import { startSimulator } from '../../src/simulator/index.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig } from './bench-config.js';
import { fixed, type BenchContext, type BenchRow } from './result.js';
import { countRows, dropRedisPrefix, sleep, startRunReplica, stopReplicas, waitFor, workerAvailable, writeRunConfig } from './worker.js';

const EVERY = '5s';
const FIGURE = `freshness of a new call in run (every ${EVERY})`;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Seconds from `addCalls` upstream to the row being readable in SQLite, with `run` polling. */
export async function benchFreshness(ctx: BenchContext): Promise<BenchRow[]> {
  if (!workerAvailable()) return [{ figure: FIGURE, measured: 'not available yet', target: '', status: 'not available yet' }];
  const samples = ctx.quick ? 8 : 40;
  const sim = await startSimulator({ businesses: 1, calls: 100, voicemails: 0, numbers: 1, rateLimit: false, seed: 19 });
  const business = sim.businesses[0]!.name;
  const path = join(ctx.tmpDir, 'freshness.db');
  const sink = { type: 'sqlite', path } as const;
  const setup = await writeRunConfig(ctx.tmpDir, 'freshness', sim, sink, { streams: ['calls'], rateLimit: false, redisUrl: ctx.redisUrl, every: EVERY });
  try {
    await backfillOnce(benchConfig(sim, sink, { streams: ['calls'], rateLimit: false }));
    const replica = startRunReplica(setup.file);
    try {
      const base = countRows(path, 'calls');
      const addedAt: number[] = [];
      const seenAfter: number[] = [];
      const poll = setInterval(() => {
        const synced = countRows(path, 'calls') - base;
        while (seenAfter.length < Math.min(synced, addedAt.length)) seenAfter.push(Date.now() - addedAt[seenAfter.length]!);
      }, 50);
      // Spread over more than one schedule interval so arrivals land at every phase of it.
      for (let i = 0; i < samples; i++) {
        sim.addCalls(business, 1);
        addedAt.push(Date.now());
        await sleep(ctx.quick ? 800 : 1300);
      }
      await waitFor(() => seenAfter.length >= samples, 60_000);
      clearInterval(poll);
      const sorted = [...seenAfter].sort((a, b) => a - b);
      return [
        {
          figure: FIGURE,
          measured: `p50 ${fixed(percentile(sorted, 50) / 1000, 1)} s, p99 ${fixed(percentile(sorted, 99) / 1000, 1)} s (${sorted.length}/${samples})`,
          target: '',
          status: 'info',
          details: { samplesMs: seenAfter, every: EVERY },
        },
      ];
    } finally {
      await stopReplicas([replica]);
    }
  } finally {
    await sim.close();
    await dropRedisPrefix(ctx.redisUrl, setup.redisPrefix);
  }
}
