import { join } from 'node:path';
import { startSimulator } from '../../simulator/index.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig } from '../support/bench-config.js';
import { budgetUse } from '../support/budget-use.js';
import { fixed, verdict, type BenchContext, type BenchRow } from './result.js';

const LIMIT = 60;
const WINDOW_MS = 2000;
const PAGE_SIZE = 100;

/**
 * Figure 1 and the page-size row: one backfill of one business against the simulator's own
 * limiter scaled to 60 per 2 s, so a few dozen windows pass in under a minute.
 */
export async function benchBudgetBackfill(ctx: BenchContext): Promise<BenchRow[]> {
  // ~30 requests per second: the backlog lasts calls / 100 / 30 seconds.
  const calls = ctx.quick ? 36_000 : 120_000;
  const sim = await startSimulator({ businesses: 1, calls, voicemails: 0, numbers: 1, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS }, seed: 11 });
  try {
    const config = benchConfig(
      sim,
      { type: 'sqlite', path: join(ctx.tmpDir, 'budget.db') },
      {
        streams: ['calls'],
        rateLimit: { requests: LIMIT, perMs: WINDOW_MS },
        pageSize: PAGE_SIZE,
      },
    );
    ctx.log(`budget (backfill): ${calls} calls at ${LIMIT} per ${WINDOW_MS} ms, page size ${PAGE_SIZE}`);
    const run = await backfillOnce(config);
    const counters = sim.counters().businesses[sim.businesses[0]!.name]!;
    const use = budgetUse(counters.windows, LIMIT, WINDOW_MS);
    const requests = counters.apiKeyRequests;
    const details = { calls, records: run.records, requests, rateLimited: counters.rateLimited, seconds: run.seconds, failures: run.failures, ...use };
    const ok = use.ratio >= 0.97 && counters.rateLimited === 0 && run.failures.length === 0;
    return [
      {
        figure: '1. budget use, backfill (60/2 s)',
        measured: `${fixed(use.ratio, 3)} (${use.used}/${use.allowed} in ${use.windows} windows), ${counters.rateLimited} × 429`,
        target: '≥ 0.97, 0 × 429',
        status: verdict(ok),
        details,
      },
      {
        figure: 'records per request (page size 100)',
        measured: fixed(run.records / requests, 1),
        target: '≈ 100',
        status: 'info',
        details: { records: run.records, requests },
      },
    ];
  } finally {
    await sim.close();
  }
}
