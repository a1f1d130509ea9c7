import { pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import { startSimulator } from '../../simulator/index.js';

/** Median milliseconds to fetch one 500-record cursor page from the simulator, over real HTTP. */
export interface SimulatorPageBench {
  calls: number;
  pages: number;
  /** First walk: every record is serialized on the way (cached when the store holds ≤ 250k calls). */
  coldMedianMs: number;
  /** Second walk over the same calls. */
  warmMedianMs: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function walk(baseUrl: string, token: string, agent: Agent): Promise<number[]> {
  const times: number[] = [];
  let cursor = '';
  for (;;) {
    const started = performance.now();
    const res = await request(`${baseUrl}/api/v1/calls?limit=500&cursor=${cursor}`, {
      headers: { authorization: `Bearer ${token}` },
      dispatcher: agent,
    });
    // Read as text and pick the cursor out: the bench measures serving, not the client's JSON.parse.
    const text = await res.body.text();
    times.push(performance.now() - started);
    if (!text.includes('"has_more":true')) return times;
    cursor = /"next_cursor":"([^"]+)"/.exec(text)?.[1] ?? '';
  }
}

export async function benchSimulatorPage(calls: number): Promise<SimulatorPageBench> {
  const sim = await startSimulator({ businesses: 1, calls, rateLimit: false });
  const agent = new Agent();
  try {
    const token = sim.businesses[0]!.apiKey;
    const cold = await walk(sim.baseUrl, token, agent);
    const warm = await walk(sim.baseUrl, token, agent);
    return { calls, pages: warm.length, coldMedianMs: median(cold), warmMedianMs: median(warm) };
  } finally {
    await agent.close();
    await sim.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const calls of [100_000, 1_000_000]) {
    const r = await benchSimulatorPage(calls);
    process.stdout.write(
      `simulator 500-record cursor page, ${r.calls} calls (${r.pages} pages): median cold ${r.coldMedianMs.toFixed(2)} ms, warm ${r.warmMedianMs.toFixed(2)} ms\n`,
    );
  }
}
