import { newCallLatencies, percentile, withLatencyRig } from './new-call-latency.js';
import { fixed, type BenchContext, type BenchRow } from './result.js';
import { sleep, workerAvailable } from './worker.js';
import { freePort } from '../support/free-port.js';

const EVERY = '10m';
const FIGURE = `webhook to row: a new call in run (every ${EVERY}, simulator webhooks)`;
const SECRET = 'bench-webhook-secret';

/**
 * Seconds from `addCalls` upstream (the simulator posts its signed webhook at once) to the row
 * being readable in SQLite, with `run` polling only every 10 minutes: the webhook path alone.
 * Arrivals are spaced past `hooks.minInterval`, so each is a burst of its own.
 */
export async function benchWebhooks(ctx: BenchContext): Promise<BenchRow[]> {
  if (!workerAvailable()) return [{ figure: FIGURE, measured: 'not available yet', target: '', status: 'not available yet' }];
  const samples = ctx.quick ? 8 : 40;
  const port = await freePort();
  return withLatencyRig(ctx, { name: 'webhooks', seed: 21, every: EVERY, extra: { hooks: { port, secret: SECRET } } }, async (rig) => {
    const receiver = `http://127.0.0.1:${port}/hooks`;
    let up = false;
    // A GET is refused with 405 once the receiver listens.
    for (let i = 0; i < 300 && !up; i++) {
      up = await fetch(receiver).then(
        (r) => r.status === 405,
        () => false,
      );
      if (!up) await sleep(100);
    }
    if (!up) throw new Error('the webhook receiver did not start');
    rig.sim.setWebhooks({ url: receiver, secret: SECRET });
    // The first start polls once; the figure begins after it.
    await sleep(2_000);
    const seenAfter = await newCallLatencies({ ...rig, samples, spacingMs: 1_300, pollMs: 25 });
    const sorted = [...seenAfter].sort((a, b) => a - b);
    const p50 = percentile(sorted, 50) / 1000;
    return [
      {
        figure: FIGURE,
        measured: `p50 ${fixed(p50, 2)} s, p99 ${fixed(percentile(sorted, 99) / 1000, 2)} s (${sorted.length}/${samples})`,
        target: 'p50 ≤ 1 s, every call within 2 s',
        status: sorted.length === samples && p50 <= 1 && (sorted.at(-1) ?? Infinity) <= 2_000 ? 'ok' : 'below target',
        details: { samplesMs: seenAfter, every: EVERY, sender: rig.sim.webhookCounters() },
      },
    ];
  });
}
