import { afterEach, describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import { createMemoryRateLimiter } from '../ratelimit/index.js';
import { createUpstreamClient, waitCappedMessage } from './client.js';
import type { FetchEvent, UpstreamClientOptions } from './client.js';
import { API_KEY, BASE, mockAgent, rejectionOf } from '../../../test/support/upstream-mock.js';

const START = Date.UTC(2026, 0, 1);
const MAX_WAIT = 60_000;
const YEAR_3000 = String(Date.UTC(3000, 0, 1) / 1000);

let agent: MockAgent;
afterEach(async () => {
  await agent.close();
});

function client(overrides: Partial<UpstreamClientOptions> = {}) {
  agent = mockAgent();
  return createUpstreamClient({ baseUrl: BASE, timeoutMs: 5_000, credentials: { apiKey: API_KEY }, dispatcher: agent, maxWaitMs: MAX_WAIT, ...overrides });
}

describe('bounds on what upstream can make the client do', () => {
  it('refuses a body over maxBodyBytes as transient, naming the limit', async () => {
    const upstream = client({ maxBodyBytes: 1_000 });
    agent
      .get(BASE)
      .intercept({ path: '/api/v1/calls' })
      .reply(200, { data: { calls: [{ id: 'x'.repeat(2_000) }] } });
    const error = await rejectionOf(upstream.get('v1', '/calls'));
    expect(error).toMatchObject({ kind: 'transient', code: 'BODY_TOO_LARGE', status: 200 });
    expect((error as Error).message).toContain('upstream.maxBodyBytes (1000 bytes)');
  });

  it('refuses a body whose declared length is over the bound without reading it', async () => {
    const upstream = client({ maxBodyBytes: 1_000 });
    agent
      .get(BASE)
      .intercept({ path: '/api/v1/calls' })
      .reply(200, '{}', { headers: { 'content-length': '5000000000' } });
    expect(await rejectionOf(upstream.get('v1', '/calls'))).toMatchObject({ code: 'BODY_TOO_LARGE' });
  });

  it('reads a body of exactly maxBodyBytes', async () => {
    const body = JSON.stringify({ data: { calls: [] } });
    const upstream = client({ maxBodyBytes: Buffer.byteLength(body) });
    agent.get(BASE).intercept({ path: '/api/v1/calls' }).reply(200, body);
    expect((await upstream.get('v1', '/calls')).payload).toEqual({ calls: [] });
  });

  it('ends a request whose headers do not arrive within timeoutMs, naming the timeout', async () => {
    const upstream = client({ timeoutMs: 50 });
    agent.get(BASE).intercept({ path: '/api/v1/calls' }).reply(200, { data: {} }).delay(2_000);
    const error = await rejectionOf(upstream.get('v1', '/calls'));
    expect(error).toMatchObject({ kind: 'transient', code: 'UPSTREAM_TIMEOUT' });
    expect((error as Error).message).toContain('within 50 ms (upstream.timeoutMs)');
  });

  it('keeps a caller abort final, not a timeout', async () => {
    const upstream = client({ timeoutMs: 5_000 });
    agent.get(BASE).intercept({ path: '/api/v1/calls' }).reply(200, { data: {} }).delay(2_000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const error = await rejectionOf(upstream.get('v1', '/calls', {}, { signal: controller.signal }));
    expect(error).not.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
  });

  it('cuts a reset in the year 3000 to maxWaitMs and says so', async () => {
    const upstream = client({ now: () => START });
    agent
      .get(BASE)
      .intercept({ path: '/api/v1/calls' })
      .reply(200, { data: {} }, { headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': YEAR_3000 } });
    const response = await upstream.get('v1', '/calls');
    expect(response.rateLimit).toEqual({ limit: 60, remaining: 0, resetAtMs: START + MAX_WAIT });
    expect(response.waitCapped).toEqual({ askedMs: Date.UTC(3000, 0, 1) - START, waitMs: MAX_WAIT, source: 'X-RateLimit-Reset' });
  });
});

describe('the retry rules under absurd waits', () => {
  function run(headers: Record<string, string>, status: number) {
    const clock = { now: START };
    const upstream = client({ now: () => clock.now });
    const pool = agent.get(BASE);
    pool.intercept({ path: '/api/v1/calls' }).reply(status, status === 429 ? { error: 'rate_limit_exceeded', message: 'wait' } : { data: {} }, { headers });
    pool.intercept({ path: '/api/v1/calls' }).reply(200, { data: { calls: [] } });
    const events: FetchEvent[] = [];
    const sleeps: number[] = [];
    const fetching = upstream.get('v1', '/calls', undefined, {
      budget: {
        limiter: createMemoryRateLimiter({ now: () => clock.now, maxWaitMs: MAX_WAIT }),
        key: 'acme',
        bucket: { limit: 60, windowMs: 60_000 },
        maxWaitMs: Infinity,
      },
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 10 },
      onEvent: (event) => events.push(event),
      now: () => clock.now,
      sleep: (ms) => {
        sleeps.push(ms);
        clock.now += ms;
        return Promise.resolve();
      },
    });
    return { fetching, events, sleeps };
  }

  it.each([
    ['Retry-After 999999999 on a 429', { 'retry-after': '999999999' }, 429, 'Retry-After'],
    ['Retry-After as a date in the year 3000 on a 503', { 'retry-after': 'Wed, 01 Jan 3000 00:00:00 GMT' }, 503, 'Retry-After'],
    [
      'a 429 with a reset in the year 3000',
      { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': YEAR_3000 },
      429,
      'X-RateLimit-Reset',
    ],
  ])('%s: waits the cap once, warns once, then goes on', async (_name, headers, status, source) => {
    const { fetching, events, sleeps } = run(headers, status);
    expect((await fetching).payload).toEqual({ calls: [] });
    expect(sleeps.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(MAX_WAIT + 60_000);
    expect(Math.max(...sleeps)).toBeGreaterThanOrEqual(MAX_WAIT - 1_000);
    const capped = events.filter((event) => event.type === 'wait-capped');
    expect(capped).toHaveLength(1);
    expect(capped[0]).toMatchObject({ source, waitMs: MAX_WAIT });
    if (capped[0]?.type === 'wait-capped') expect(waitCappedMessage(capped[0])).toMatch(/asked to wait \d+ s .*waiting upstream\.maxWaitMs \(60 s\)/);
  });
});
