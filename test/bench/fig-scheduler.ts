import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig } from './bench-config.js';
import { cpuSeconds } from './process-cpu.js';
import { fixed, verdict, type BenchContext, type BenchRow } from './result.js';
import { alive, dropRedisPrefix, redisCommandsProcessed, sleep, startRunReplica, stopReplicas, waitFor, workerAvailable, writeRunConfig } from './worker.js';

const BUSINESSES = 1000;
const STREAMS = ['calls', 'voicemails', 'numbers'];
const FIGURE = '6. scheduler, 1,000 businesses × 3 streams';

/** Every business has asked for each of its streams at least once (calls and numbers on v1, voicemails on v2). */
function allScheduled(sim: Simulator): boolean {
  return Object.values(sim.counters().businesses).every((b) => b.apiKeyRequests >= 2 && b.v2Requests >= 1);
}

function anyRequest(sim: Simulator): boolean {
  return Object.values(sim.counters().businesses).some((b) => b.apiKeyRequests + b.v2Requests > 0);
}

/**
 * Figure 6: one `run` process over 1,000 already-synced businesses (nothing new upstream): time
 * until every business × stream has been polled, then CPU of the process and Redis commands
 * over a steady stretch.
 */
export async function benchScheduler(ctx: BenchContext): Promise<BenchRow[]> {
  if (!workerAvailable()) return [{ figure: FIGURE, measured: 'not available yet', target: 'all within 10 s', status: 'not available yet' }];
  const sim = await startSimulator({ businesses: BUSINESSES, calls: 10, voicemails: 5, numbers: 1, rateLimit: false, seed: 17 });
  const path = join(ctx.tmpDir, 'scheduler.db');
  const sink = { type: 'sqlite', path } as const;
  const setup = await writeRunConfig(ctx.tmpDir, 'scheduler', sim, sink, { streams: STREAMS, rateLimit: false, redisUrl: ctx.redisUrl, every: '60s', concurrency: 16 });
  const steadyMs = ctx.quick ? 10_000 : 60_000;
  try {
    ctx.log('scheduler: backfilling 1,000 businesses first so that nothing is new');
    await backfillOnce(benchConfig(sim, sink, { streams: STREAMS, rateLimit: false, concurrency: 16 }));
    sim.resetCounters();
    const started = Date.now();
    const replica = startRunReplica(setup.file);
    try {
      let firstRequestAt: number | undefined;
      const scheduled = await waitFor(() => {
        firstRequestAt ??= anyRequest(sim) ? Date.now() : undefined;
        return allScheduled(sim);
      }, 60_000, 100);
      const scheduledSeconds = (Date.now() - started) / 1000;
      const afterFirstSeconds = (Date.now() - (firstRequestAt ?? started)) / 1000;
      const cpuBefore = cpuSeconds(replica.pid ?? 0);
      const redisBefore = await redisCommandsProcessed(ctx.redisUrl);
      await sleep(steadyMs);
      if (alive([replica]) === 0) throw new Error('the run process exited during the steady stretch');
      const cpu = (cpuSeconds(replica.pid ?? 0) - cpuBefore) / (steadyMs / 1000);
      const redisPerMinute = ((await redisCommandsProcessed(ctx.redisUrl)) - redisBefore) * (60_000 / steadyMs);
      return [
        {
          figure: FIGURE,
          measured: scheduled ? `all polled ${fixed(scheduledSeconds, 1)} s after spawn (${fixed(afterFirstSeconds, 1)} s after 1st request)` : 'not all polled within 60 s',
          target: 'all within 10 s',
          status: verdict(scheduled && scheduledSeconds <= 10),
          details: { scheduled, scheduledSeconds, afterFirstSeconds },
        },
        {
          figure: '6. steady CPU / Redis commands',
          measured: `${fixed(cpu * 100, 1)} % of a core, ${Math.round(redisPerMinute).toLocaleString('en-US')} Redis cmd/min`,
          target: '',
          status: 'info',
          details: { steadyMs, cpuCores: cpu, redisPerMinute, note: 'Redis count is server-wide' },
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
