import { newCallLatencies, percentile, withLatencyRig } from './new-call-latency.js';
import { fixed, type BenchContext, type BenchRow } from './result.js';
import { workerAvailable } from './worker.js';

const EVERY = '5s';
const FIGURE = `freshness of a new call in run (every ${EVERY})`;

/** Seconds from `addCalls` upstream to the row being readable in SQLite, with `run` polling. */
export async function benchFreshness(ctx: BenchContext): Promise<BenchRow[]> {
  if (!workerAvailable()) return [{ figure: FIGURE, measured: 'not available yet', target: '', status: 'not available yet' }];
  const samples = ctx.quick ? 8 : 40;
  return withLatencyRig(ctx, { name: 'freshness', seed: 19, every: EVERY }, async (rig) => {
    // Spread over more than one schedule interval so arrivals land at every phase of it.
    const seenAfter = await newCallLatencies({ ...rig, samples, spacingMs: ctx.quick ? 800 : 1300, pollMs: 50 });
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
  });
}
