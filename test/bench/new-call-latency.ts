import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../simulator/index.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig } from '../support/bench-config.js';
import type { BenchContext } from './result.js';
import { countRows, dropRedisPrefix, sleep, startRunReplica, stopReplicas, waitFor, writeRunConfig } from './worker.js';

/** One business of 100 calls, backfilled into SQLite, and one `run` replica polling it. */
export interface LatencyRig {
  readonly sim: Simulator;
  readonly business: string;
  /** The SQLite file the replica writes. */
  readonly path: string;
}

/**
 * Sets up a {@link LatencyRig} (`name` names the file and the Redis prefix; `extra` goes into the
 * config), runs `measure` while the replica runs, then stops and removes everything.
 */
export async function withLatencyRig<T>(
  ctx: BenchContext,
  rig: { readonly name: string; readonly seed: number; readonly every: string; readonly extra?: Readonly<Record<string, unknown>> },
  measure: (running: LatencyRig) => Promise<T>,
): Promise<T> {
  const sim = await startSimulator({ businesses: 1, calls: 100, voicemails: 0, numbers: 1, rateLimit: false, seed: rig.seed });
  const path = join(ctx.tmpDir, `${rig.name}.db`);
  const sink = { type: 'sqlite', path } as const;
  const options = { streams: ['calls'], rateLimit: false } as const;
  const setup = await writeRunConfig(ctx.tmpDir, rig.name, sim, sink, {
    ...options,
    redisUrl: ctx.redisUrl,
    every: rig.every,
    ...(rig.extra === undefined ? {} : { extra: rig.extra }),
  });
  try {
    await backfillOnce(benchConfig(sim, sink, options));
    const replica = startRunReplica(setup.file);
    try {
      return await measure({ sim, business: sim.businesses[0]!.name, path });
    } finally {
      await stopReplicas([replica]);
    }
  } finally {
    await sim.close();
    await dropRedisPrefix(ctx.redisUrl, setup.redisPrefix);
  }
}

/** How the new calls are added and watched for. */
export interface LatencyPlan extends LatencyRig {
  readonly samples: number;
  /** Between two new calls upstream. */
  readonly spacingMs: number;
  /** How often the row count is read. */
  readonly pollMs: number;
}

/**
 * Milliseconds from each `addCalls` upstream to its row being readable in SQLite, in arrival
 * order; the rows present at the start are the base.
 */
export async function newCallLatencies(plan: LatencyPlan): Promise<number[]> {
  const base = countRows(plan.path, 'calls');
  const addedAt: number[] = [];
  const seenAfter: number[] = [];
  const poll = setInterval(() => {
    const synced = countRows(plan.path, 'calls') - base;
    while (seenAfter.length < Math.min(synced, addedAt.length)) seenAfter.push(Date.now() - addedAt[seenAfter.length]!);
  }, plan.pollMs);
  try {
    for (let i = 0; i < plan.samples; i++) {
      plan.sim.addCalls(plan.business, 1);
      addedAt.push(Date.now());
      await sleep(plan.spacingMs);
    }
    await waitFor(() => seenAfter.length >= plan.samples, 60_000);
  } finally {
    clearInterval(poll);
  }
  return seenAfter;
}

/** The p-th percentile (0–100) of ascending values, nearest rank; NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
