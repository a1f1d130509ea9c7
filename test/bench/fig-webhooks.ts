import { createServer } from 'node:net';
import { join } from 'node:path';
import { startSimulator } from '../../src/simulator/index.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig } from './bench-config.js';
import { fixed, type BenchContext, type BenchRow } from './result.js';
import { countRows, dropRedisPrefix, sleep, startRunReplica, stopReplicas, waitFor, workerAvailable, writeRunConfig } from './worker.js';

const EVERY = '10m';
const FIGURE = `webhook to row: a new call in run (every ${EVERY}, simulator webhooks)`;
const SECRET = 'bench-webhook-secret';

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** A port free now, for the receiver's own port (the replica is a child process whose ports are not read back). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/**
 * Seconds from `addCalls` upstream (the simulator posts its signed webhook at once) to the row
 * being readable in SQLite, with `run` polling only every 10 minutes: the webhook path alone.
 * Arrivals are spaced past `hooks.minInterval`, so each is a burst of its own.
 */
export async function benchWebhooks(ctx: BenchContext): Promise<BenchRow[]> {
  if (!workerAvailable()) return [{ figure: FIGURE, measured: 'not available yet', target: '', status: 'not available yet' }];
  const samples = ctx.quick ? 8 : 40;
  const sim = await startSimulator({ businesses: 1, calls: 100, voicemails: 0, numbers: 1, rateLimit: false, seed: 21 });
  const business = sim.businesses[0]!.name;
  const path = join(ctx.tmpDir, 'webhooks.db');
  const sink = { type: 'sqlite', path } as const;
  const port = await freePort();
  const setup = await writeRunConfig(ctx.tmpDir, 'webhooks', sim, sink, {
    streams: ['calls'],
    rateLimit: false,
    redisUrl: ctx.redisUrl,
    every: EVERY,
    extra: { hooks: { port, secret: SECRET } },
  });
  try {
    await backfillOnce(benchConfig(sim, sink, { streams: ['calls'], rateLimit: false }));
    const replica = startRunReplica(setup.file);
    try {
      const receiver = `http://127.0.0.1:${port}/hooks`;
      let up = false;
      // A GET is refused with 405 once the receiver listens.
      for (let i = 0; i < 300 && !up; i++) {
        up = await fetch(receiver).then((r) => r.status === 405, () => false);
        if (!up) await sleep(100);
      }
      if (!up) throw new Error('the webhook receiver did not start');
      sim.setWebhooks({ url: receiver, secret: SECRET });
      // The first start polls once; the figure begins after it.
      await sleep(2_000);
      const base = countRows(path, 'calls');
      const addedAt: number[] = [];
      const seenAfter: number[] = [];
      const poll = setInterval(() => {
        const synced = countRows(path, 'calls') - base;
        while (seenAfter.length < Math.min(synced, addedAt.length)) seenAfter.push(Date.now() - addedAt[seenAfter.length]!);
      }, 25);
      for (let i = 0; i < samples; i++) {
        sim.addCalls(business, 1);
        addedAt.push(Date.now());
        await sleep(1_300);
      }
      await waitFor(() => seenAfter.length >= samples, 60_000);
      clearInterval(poll);
      const sorted = [...seenAfter].sort((a, b) => a - b);
      const p50 = percentile(sorted, 50) / 1000;
      return [
        {
          figure: FIGURE,
          measured: `p50 ${fixed(p50, 2)} s, p99 ${fixed(percentile(sorted, 99) / 1000, 2)} s (${sorted.length}/${samples})`,
          target: 'p50 ≤ 1 s, every call within 2 s',
          status: sorted.length === samples && p50 <= 1 && (sorted.at(-1) ?? Infinity) <= 2_000 ? 'ok' : 'below target',
          details: { samplesMs: seenAfter, every: EVERY, sender: sim.webhookCounters() },
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
