import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from '../../../src/source/ratelimit/index.js';
import { startSimulator } from '../../../simulator/index.js';
import type { Simulator } from '../../../simulator/index.js';
import { createUpstreamClient } from '../../../src/source/upstream/index.js';
import type { FetchEvent, UpstreamClient } from '../../../src/source/upstream/index.js';

const MAX_WAIT_MS = 1_500;
// Only the trickle case is about the deadline; every other request gets one no loaded machine
// reaches, so the bound under test (body cap, Retry-After, reset) is what ends it.
const TRICKLE_TIMEOUT_MS = 1_000;
const GENEROUS_TIMEOUT_MS = 30_000;

let simulator: Simulator;
let client: UpstreamClient;
let deadlineClient: UpstreamClient;
let apiKey: string;
beforeAll(async () => {
  simulator = await startSimulator({ businesses: 1, calls: 20, rateLimit: false });
  apiKey = simulator.businesses[0]?.apiKey ?? '';
  const options = { baseUrl: simulator.baseUrl, maxWaitMs: MAX_WAIT_MS, maxBodyBytes: 4 * 1024 * 1024, credentials: { apiKey } };
  client = createUpstreamClient({ ...options, timeoutMs: GENEROUS_TIMEOUT_MS });
  deadlineClient = createUpstreamClient({ ...options, timeoutMs: TRICKLE_TIMEOUT_MS });
});
afterAll(async () => {
  await client.close();
  await deadlineClient.close();
  await simulator.close();
});

function fetchCalls() {
  const events: FetchEvent[] = [];
  const done = client.get(
    'v1',
    '/calls',
    { limit: 5 },
    {
      budget: {
        limiter: createMemoryRateLimiter({ maxWaitMs: MAX_WAIT_MS }),
        key: 'acme',
        bucket: { limit: 1_000, windowMs: 100 },
        maxWaitMs: Number.POSITIVE_INFINITY,
      },
      retry: { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 20 },
      onEvent: (event) => events.push(event),
    },
  );
  return { done, events };
}

describe("bounds against the simulator's hostile switches, over real HTTP", () => {
  it('waits the Retry-After of a 503, not the shorter backoff', async () => {
    simulator.setHostile({ unavailable: { requests: 2, retryAfter: '1' } });
    const { done, events } = fetchCalls();
    expect((await done).status).toBe(200);
    expect(events.filter((event) => event.type === 'retry').map((event) => (event.type === 'retry' ? event.waitMs : 0))).toEqual([1_000, 1_000]);
  });

  // At 190 the header starts just before the 200-character cut; at 175 the key itself straddles it (scrubbed first, the cut falls inside '[redacted]').
  it.each([190, 175])('leaves no 8-character piece of the key in an error echoing the Authorization header at character %i', async (at) => {
    simulator.setHostile({ echoCredentials: { status: 400, at, length: 600 } });
    try {
      const error = await client.get('v1', '/calls').catch((caught: unknown) => caught);
      const rendered = `${String(error)} ${JSON.stringify(error)}`;
      expect(rendered).toContain('Authorizat');
      if (at === 175) expect(rendered).toContain('Bearer [re');
      for (let index = 0; index + 8 <= apiKey.length; index += 1) expect(rendered).not.toContain(apiKey.slice(index, index + 8));
    } finally {
      simulator.setHostile({ echoCredentials: null });
    }
  });

  it.each([
    ['a chunked 1 GiB body', { hugeBodyBytes: 1024 ** 3 }, 'BODY_TOO_LARGE', 'upstream.maxBodyBytes'],
    ['a declared 1 GiB body', { hugeBodyBytes: 1024 ** 3, hugeBodyDeclared: true }, 'BODY_TOO_LARGE', 'upstream.maxBodyBytes'],
    ['a body trickling a byte every 50 ms', { trickleMs: 50 }, 'UPSTREAM_TIMEOUT', `within ${TRICKLE_TIMEOUT_MS} ms (upstream.timeoutMs)`],
  ])('refuses %s as a transient failure naming the bound', async (_name, hostile, code, bound) => {
    simulator.setHostile(hostile);
    try {
      const error = await (code === 'UPSTREAM_TIMEOUT' ? deadlineClient : client).get('v1', '/calls').catch((caught: unknown) => caught);
      expect(error).toMatchObject({ kind: 'transient', code });
      expect((error as Error).message).toContain(bound);
    } finally {
      simulator.setHostile({ hugeBodyBytes: 0, hugeBodyDeclared: false, trickleMs: 0 });
    }
  });

  it('cuts a budget that resets in the year 3000 to maxWaitMs, with one warning, and goes on', async () => {
    simulator.setHostile({ exhaustedUntilSec: 32_503_680_000 });
    try {
      const first = fetchCalls();
      await first.done;
      expect(first.events.filter((event) => event.type === 'wait-capped')).toEqual([
        expect.objectContaining({ source: 'X-RateLimit-Reset', waitMs: MAX_WAIT_MS }),
      ]);
    } finally {
      simulator.setHostile({ exhaustedUntilSec: 0 });
    }
  });
});
