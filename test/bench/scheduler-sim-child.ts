/**
 * Figure 6's upstream in a process of its own (`node --import tsx scheduler-sim-child.ts N`): N
 * businesses with a few records each and the documented 60 requests a minute (so responses carry
 * the `X-RateLimit-*` headers the worker's limiter reads). Its first stdout line is the endpoint
 * (URLs and credentials); then every `counters` line on stdin is answered with one line of
 * totals (and `reset` zeroes them, answered `{}`), so the bench reads the simulator's counters without carrying its CPU.
 */
import { createInterface } from 'node:readline';
import { startSimulator } from '../../simulator/index.js';

/** What the bench reads: requests so far, and how many businesses asked for all three streams. */
export interface SchedulerSimCounters {
  readonly apiKeyRequests: number;
  readonly v2Requests: number;
  /** Businesses that asked v1 at least twice (calls, numbers) and v2 at least once (voicemails). */
  readonly polledBusinesses: number;
}

const businesses = Number(process.argv[2]);
if (!Number.isSafeInteger(businesses) || businesses < 1) throw new Error(`usage: scheduler-sim-child.ts BUSINESSES (got ${String(process.argv[2])})`);
const sim = await startSimulator({ businesses, calls: 10, voicemails: 5, numbers: 1, rateLimit: { limit: 60, windowMs: 60_000 }, seed: 17 });
const { baseUrl, v2BaseUrl, recordingsBaseUrl } = sim;
process.stdout.write(
  `${JSON.stringify({ baseUrl, v2BaseUrl, recordingsBaseUrl, businesses: sim.businesses.map(({ name, apiKey, v2Token }) => ({ name, apiKey, v2Token })) })}\n`,
);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === 'reset') {
    sim.resetCounters();
    process.stdout.write('{}\n');
    return;
  }
  if (line.trim() !== 'counters') return;
  let apiKeyRequests = 0;
  let v2Requests = 0;
  let polledBusinesses = 0;
  for (const b of Object.values(sim.counters().businesses)) {
    apiKeyRequests += b.apiKeyRequests;
    v2Requests += b.v2Requests;
    if (b.apiKeyRequests >= 2 && b.v2Requests >= 1) polledBusinesses += 1;
  }
  const reply: SchedulerSimCounters = { apiKeyRequests, v2Requests, polledBusinesses };
  process.stdout.write(`${JSON.stringify(reply)}\n`);
});
// The bench closes stdin (or signals) when it is done.
const stop = (): void => void sim.close().then(() => process.exit(0));
lines.on('close', stop);
process.on('SIGTERM', stop);
