import { join } from 'node:path';
import { startSimulator } from '../../simulator/index.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig } from '../support/bench-config.js';
import { fixed, verdict, type BenchContext, type BenchRow } from './result.js';

const STREAMS = ['calls', 'voicemails', 'numbers'];

/**
 * Figure 7: a second backfill into the same SQLite file with nothing new upstream. Every
 * request it makes (v1 key, session and v2) is divided by businesses × streams.
 */
export async function benchIncremental(ctx: BenchContext): Promise<BenchRow[]> {
  const businesses = 3;
  const sim = await startSimulator({ businesses, calls: 5000, voicemails: 300, numbers: 5, rateLimit: false, seed: 7 });
  try {
    const config = benchConfig(sim, { type: 'sqlite', path: join(ctx.tmpDir, 'incremental.db') }, { streams: STREAMS, rateLimit: false });
    const first = await backfillOnce(config);
    sim.resetCounters();
    const second = await backfillOnce(config);
    let requests = 0;
    for (const counters of Object.values(sim.counters().businesses)) requests += counters.apiKeyRequests + counters.sessionRequests + counters.v2Requests;
    const perUnit = requests / (businesses * STREAMS.length);
    const failures = [...first.failures, ...second.failures];
    return [
      {
        figure: '7. incremental cost, nothing new',
        measured: `${fixed(perUnit)} req per business × stream`,
        target: '≤ 1',
        status: verdict(perUnit <= 1 && failures.length === 0),
        details: { businesses, streams: STREAMS, firstRecords: first.records, secondRecords: second.records, requests, perUnit, failures },
      },
    ];
  } finally {
    await sim.close();
  }
}
