import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Simulator } from '../../../simulator/index.js';
import { startSimulator } from '../../../simulator/index.js';
import { call } from './http.js';

describe('simulator faults', () => {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  async function start(): Promise<Simulator> {
    sim = await startSimulator({ businesses: 1, calls: 200, voicemails: 50, rateLimit: false });
    return sim;
  }

  it('errorRate gives 500 in the ordinary error shape, on v1 and v2, and counts them', async () => {
    const s = await start();
    s.setFaults({ errorRate: 1 });
    const v1 = await call<{ error: { code: string } }>(`${s.baseUrl}/api/v1/calls`, { token: s.businesses[0]!.apiKey });
    const v2 = await call(`${s.v2BaseUrl}/api/all/voicemails`, { token: s.businesses[0]!.v2Token });
    expect(v1.status).toBe(500);
    expect(v1.body.error.code).toBe('500');
    expect(v2.status).toBe(500);
    expect(s.counters().faults.errors).toBe(2);
    expect(s.counters().byStatus['500']).toBe(2);
  });

  it('truncateRate sends correct headers and half the body, then closes the socket', async () => {
    const s = await start();
    s.setFaults({ truncateRate: 1 });
    await expect(call(`${s.baseUrl}/api/v1/calls?limit=200`, { token: s.businesses[0]!.apiKey })).rejects.toThrow();
    expect(s.counters().faults.truncated).toBe(1);
    s.setFaults({ truncateRate: 0 });
    expect((await call(`${s.baseUrl}/api/v1/calls?limit=200`, { token: s.businesses[0]!.apiKey })).status).toBe(200);
  });

  it('resetRate destroys the connection before any response', async () => {
    const s = await start();
    s.setFaults({ resetRate: 1 });
    await expect(call(`${s.v2BaseUrl}/api/all/calls`, { token: s.businesses[0]!.v2Token })).rejects.toThrow();
    expect(s.counters().faults.resets).toBe(1);
    expect(s.counters().byStatus).toEqual({});
  });

  it('slowRate delays the response by slowMs: a later fast request overtakes it, and both are correct', async () => {
    const s = await start();
    const token = s.businesses[0]!.apiKey;
    s.setFaults({ slowRate: 1, slowMs: 1_000 });
    const order: string[] = [];
    const slow = call<{ data: { calls: unknown[] } }>(`${s.baseUrl}/api/v1/calls?limit=3`, { token }).then((r) => {
      order.push('slow');
      return r;
    });
    // Switched off once the first request has been planned slow: a machine slower than any pause cannot let it through fast.
    await vi.waitFor(() => expect(s.counters().faults.slow).toBe(1), { timeout: 10_000, interval: 5 });
    s.setFaults({ slowRate: 0 });
    const fast = await call(`${s.baseUrl}/api/v1/numbers`, { token });
    order.push('fast');
    expect((await slow).body.data.calls).toHaveLength(3);
    expect(fast.status).toBe(200);
    expect(order).toEqual(['fast', 'slow']);
    expect(s.counters().faults.slow).toBe(1);
  });

  it('sessions and login are never faulted', async () => {
    const s = await start();
    s.setFaults({ errorRate: 1 });
    const b = s.businesses[0]!;
    const login = await call(`${s.baseUrl}/api/v1/auth/login`, { method: 'POST', json: { email: b.email, password: b.password } });
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    expect((await call(`${s.baseUrl}/api/v1/numbers`, { cookie })).status).toBe(200);
    expect(s.counters().faults.errors).toBe(0);
  });

  it('mixes faults at the configured rates, deterministically from the seed', async () => {
    const run = async (): Promise<number[]> => {
      const s = await startSimulator({ businesses: 1, calls: 10, rateLimit: false, faults: { errorRate: 0.3 } });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await call(`${s.baseUrl}/api/v1/numbers`, { token: s.businesses[0]!.apiKey })).status);
      await s.close();
      return statuses;
    };
    const first = await run();
    expect(first.filter((x) => x === 500).length).toBeGreaterThan(2);
    expect(first.filter((x) => x === 200).length).toBeGreaterThan(10);
    expect(await run()).toEqual(first);
  });
});
