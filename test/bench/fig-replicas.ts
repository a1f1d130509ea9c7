import { join } from 'node:path';
import { createSink } from '../../connectors/registry.js';
import { startSimulator } from '../../simulator/index.js';
import { planBusinesses } from '../../src/engine/sync/plan-businesses.js';
import { benchConfig } from '../support/bench-config.js';
import { budgetUse } from '../support/budget-use.js';
import { fixed, verdict, type BenchContext, type BenchRow } from './result.js';
import { silentLogger } from '../support/silent-logger.js';
import { alive, countRows, dropRedisPrefix, startRunReplica, stopReplicas, waitFor, workerAvailable, writeRunConfig } from './worker.js';

const LIMIT = 60;
const WINDOW_MS = 2000;
const REPLICAS = 3;
const FIGURE = '2. budget use, 3 run replicas (60/2 s)';

/** Figure 2: three `callsync run` processes sharing one business's bucket through Redis. */
export async function benchReplicas(ctx: BenchContext): Promise<BenchRow[]> {
  if (!workerAvailable()) return [{ figure: FIGURE, measured: 'not available yet', target: '≥ 0.95, 0 × 429', status: 'not available yet' }];
  const calls = ctx.quick ? 24_000 : 90_000;
  const sim = await startSimulator({ businesses: 1, calls, voicemails: 0, numbers: 1, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS }, seed: 13 });
  const path = join(ctx.tmpDir, 'replicas.db');
  const setup = await writeRunConfig(
    ctx.tmpDir,
    'replicas',
    sim,
    { type: 'sqlite', path },
    {
      streams: ['calls'],
      rateLimit: { requests: LIMIT, perMs: WINDOW_MS },
      pageSize: 100,
      redisUrl: ctx.redisUrl,
      every: '2s',
    },
  );
  // Three processes migrating one fresh SQLite file at once race on kysely's migration table (one
  // crashes); the tables are created first so the figure measures three replicas, not that race.
  const config = benchConfig(sim, { type: 'sqlite', path }, { streams: ['calls'], rateLimit: false });
  const sink = await createSink(config.sink, { logger: silentLogger() });
  await sink.prepare(planBusinesses(config).flatMap((plan) => plan.streams.map((stream) => stream.table)));
  await sink.close();
  ctx.log(`budget (${REPLICAS} replicas): ${calls} calls`);
  const replicas = Array.from({ length: REPLICAS }, () => startRunReplica(setup.file));
  try {
    const expectedSeconds = calls / 100 / (LIMIT / (WINDOW_MS / 1000));
    const finished = await waitFor(() => countRows(path, 'calls') >= calls, (expectedSeconds + 60) * 1000, 500);
    const running = alive(replicas);
    const counters = sim.counters().businesses[sim.businesses[0]!.name]!;
    const use = budgetUse(counters.windows, LIMIT, WINDOW_MS);
    const ok = finished && running === REPLICAS && use.ratio >= 0.95 && counters.rateLimited === 0;
    return [
      {
        figure: FIGURE,
        measured: `${fixed(use.ratio, 3)} (${use.used}/${use.allowed} in ${use.windows} windows), ${counters.rateLimited} × 429, ${running}/${REPLICAS} alive${finished ? '' : ', did not finish'}`,
        target: '≥ 0.95, 0 × 429',
        status: verdict(ok),
        details: { calls, finished, replicasAlive: running, rows: countRows(path, 'calls'), rateLimited: counters.rateLimited, ...use },
      },
    ];
  } finally {
    await stopReplicas(replicas);
    await sim.close();
    await dropRedisPrefix(ctx.redisUrl, setup.redisPrefix);
  }
}
