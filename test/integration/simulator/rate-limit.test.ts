import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../simulator/index.js';
import { startSimulator } from '../../../simulator/index.js';
import { call } from './http.js';

interface RateLimited {
  error: string;
  message: string;
  retry_after: number;
}

/**
 * The simulator's clock, stepped by hand: a burst stays in one window however slow the machine,
 * and the next window comes without waiting for it.
 */
function steppedClock(): { now: () => number; to: (ms: number) => void } {
  let ms = Date.UTC(2026, 0, 1);
  return { now: () => ms, to: (next) => (ms = next) };
}

describe('simulator rate limit', () => {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('admits `limit` requests per window, then 429 with body, Retry-After and counters; keys share the bucket', async () => {
    const clock = steppedClock();
    const windowStart = clock.now() + 1000;
    sim = await startSimulator({ businesses: 2, calls: 20, rateLimit: { limit: 5, windowMs: 1000 }, clock: clock.now });
    const s = sim;
    const created = await call<{ data: { key: string } }>(`${s.baseUrl}/api/v1/api-keys`, {
      method: 'POST',
      token: s.businesses[0]!.apiKey,
      json: { name: 'second' },
    });
    const second = created.body.data.key;
    s.resetCounters();
    clock.to(windowStart + 200);
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 7; i++) {
      const token = i % 2 === 0 ? s.businesses[0]!.apiKey : second;
      const res = await call<RateLimited>(`${s.baseUrl}/api/v1/numbers`, { token });
      statuses.push(res.status);
      remaining.push(String(res.headers['x-ratelimit-remaining']));
      if (res.status === 429) {
        expect(res.body.error).toBe('rate_limit_exceeded');
        expect(res.body.message).toBe(`Rate limit of 5 requests per second exceeded; retry in ${res.body.retry_after} seconds`);
        expect(Number.isInteger(res.body.retry_after)).toBe(true);
        expect(res.body.retry_after).toBeGreaterThanOrEqual(1);
        expect(res.headers['retry-after']).toBe(String(res.body.retry_after));
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(remaining).toEqual(['4', '3', '2', '1', '0', '0', '0']);
    const other = await call(`${s.baseUrl}/api/v1/numbers`, { token: s.businesses[1]!.apiKey });
    expect(other.status).toBe(200);
    const c = s.counters();
    expect(c.businesses['biz-1']!.rateLimited).toBe(2);
    expect(c.businesses['biz-1']!.apiKeyRequests).toBe(7);
    expect(c.businesses['biz-1']!.maxWindowCount).toBe(7);
    expect(c.businesses['biz-1']!.windows.at(-1)).toMatchObject({ count: 7, admitted: 5 });
    expect(c.businesses['biz-1']!.windows.at(-1)!.startMs % 1000).toBe(0);
    expect(c.businesses['biz-2']!.rateLimited).toBe(0);
    expect(c.byStatus['429']).toBe(2);
    clock.to(windowStart + 1000);
    const refilled = await call(`${s.baseUrl}/api/v1/numbers`, { token: s.businesses[0]!.apiKey });
    expect(refilled.status).toBe(200);
    expect(refilled.headers['x-ratelimit-remaining']).toBe('4');
  });

  it('emits the reset as a decimal for sub-minute windows and as whole seconds for a minute', async () => {
    sim = await startSimulator({ businesses: 1, calls: 5, rateLimit: { limit: 5, windowMs: 1000 } });
    const short = await call(`${sim.baseUrl}/api/v1/numbers`, { token: sim.businesses[0]!.apiKey });
    const reset = String(short.headers['x-ratelimit-reset']);
    expect(reset).toMatch(/^\d+\.\d{3}$/);
    expect(Number(reset) * 1000 - Date.now()).toBeLessThanOrEqual(1000);
    sim.setRateLimit({ limit: 60, windowMs: 60_000 });
    const minute = await call(`${sim.baseUrl}/api/v1/numbers`, { token: sim.businesses[0]!.apiKey });
    expect(minute.headers['x-ratelimit-limit']).toBe('60');
    const whole = String(minute.headers['x-ratelimit-reset']);
    expect(whole).toMatch(/^\d+$/);
    expect(Number(whole) % 60).toBe(0);
  });

  it('puts the rate-limit headers on every API-key response: 200, 201, 400, 404, 500 and 429', async () => {
    sim = await startSimulator({ businesses: 1, calls: 5, rateLimit: { limit: 100, windowMs: 60_000 } });
    const token = sim.businesses[0]!.apiKey;
    const responses = [
      await call(`${sim.baseUrl}/api/v1/calls`, { token }),
      await call(`${sim.baseUrl}/api/v1/api-keys`, { method: 'POST', token, json: { name: 'x' } }),
      await call(`${sim.baseUrl}/api/v1/calls?limit=501`, { token }),
      await call(`${sim.baseUrl}/api/v1/nothing-here`, { token }),
    ];
    sim.setFaults({ errorRate: 1 });
    responses.push(await call(`${sim.baseUrl}/api/v1/calls`, { token }));
    sim.setFaults({ errorRate: 0, stormUntilMs: Date.now() + 60_000 });
    responses.push(await call(`${sim.baseUrl}/api/v1/calls`, { token }));
    expect(responses.map((r) => r.status)).toEqual([200, 201, 400, 404, 500, 429]);
    for (const res of responses) {
      expect(res.headers['x-ratelimit-limit']).toBe('100');
      expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
      expect(res.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    }
  });

  it('a 429 storm refuses every v1 API-key request regardless of budget, but not v2 or sessions', async () => {
    sim = await startSimulator({ businesses: 1, calls: 5 });
    const b = sim.businesses[0]!;
    sim.setFaults({ stormUntilMs: Date.now() + 30_000 });
    const res = await call<RateLimited>(`${sim.baseUrl}/api/v1/calls`, { token: b.apiKey });
    expect(res.status).toBe(429);
    expect(res.body.retry_after).toBeGreaterThan(20);
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect((await call(`${sim.v2BaseUrl}/api/all/calls`, { token: b.v2Token })).status).toBe(200);
    sim.setFaults({ stormUntilMs: 0 });
    expect((await call(`${sim.baseUrl}/api/v1/calls`, { token: b.apiKey })).status).toBe(200);
    expect(sim.counters().faults.storm429).toBe(1);
    expect(sim.counters().businesses['biz-1']!.rateLimited).toBe(1);
  });

  it('v2 requests take from the same bucket and carry the same headers', async () => {
    sim = await startSimulator({ businesses: 1, calls: 5, rateLimit: { limit: 3, windowMs: 1000 }, clock: steppedClock().now });
    const b = sim.businesses[0]!;
    const v1 = await call(`${sim.baseUrl}/api/v1/calls`, { token: b.apiKey });
    const v2 = await call(`${sim.v2BaseUrl}/api/all/voicemails`, { token: b.v2Token });
    expect(v1.headers['x-ratelimit-remaining']).toBe('2');
    expect(v2.headers['x-ratelimit-remaining']).toBe('1');
    await call(`${sim.v2BaseUrl}/api/all/calls`, { token: b.v2Token });
    const refused = await call<RateLimited>(`${sim.v2BaseUrl}/api/all/calls`, { token: b.v2Token });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('rate_limit_exceeded');
    expect(sim.counters().businesses['biz-1']!.v2Requests).toBe(3);
  });

  it('without a rate limit there are no rate-limit headers and no 429', async () => {
    sim = await startSimulator({ businesses: 1, calls: 5, rateLimit: false });
    for (let i = 0; i < 80; i++) {
      const res = await call(`${sim.baseUrl}/api/v1/numbers`, { token: sim.businesses[0]!.apiKey });
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });
});
