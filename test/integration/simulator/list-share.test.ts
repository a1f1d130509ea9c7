import { describe, expect, it } from 'vitest';
import type { Simulator } from '../../../simulator/index.js';
import { startSimulator } from '../../../simulator/index.js';
import type { CallsPage } from './http.js';
import { call, cursorWalk, offsetWalk } from './http.js';

async function cursorTotal(sim: Simulator): Promise<number> {
  return (await call<CallsPage>(`${sim.baseUrl}/api/v1/calls?limit=1`, { token: sim.businesses[0]!.apiKey })).body.data.total;
}

describe.each(['oldest', 'newest'] as const)('simulator hostile.listShare: an outage that answers a third of each list (v1Order %s)', (order) => {
  it('every v1 list answers every third record with total agreeing; the truth keeps all; switched back, everything is listed again', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 600, numbers: 6, rateLimit: false, v1Order: order, hostile: { listShare: 1 / 3 } });
    try {
      const token = sim.businesses[0]!.apiKey;
      const all = sim.truth('biz-1').calls.map((c) => c.id);
      // Every third by position in the store (oldest first), in the list's own order.
      const oldestFirst = order === 'oldest' ? all : [...all].reverse();
      const third = oldestFirst.filter((_, i) => i % 3 === 2);
      const listed = order === 'oldest' ? third : [...third].reverse();
      expect(await offsetWalk(sim.baseUrl, sim.businesses[0]!.apiKey, 70)).toEqual({ ids: listed, total: 200 });
      expect(await cursorWalk(sim.baseUrl, token, 70)).toEqual(listed);
      expect(await cursorTotal(sim)).toBe(200);
      const page = await call<CallsPage>(`${sim.baseUrl}/api/v1/calls?page=3&per_page=90`, { token });
      expect(page.body.data).toMatchObject({ total: 200, has_more: false });
      expect(page.body.data.calls.map((c) => c.id)).toEqual(listed.slice(180));
      const numbers = await call<{ data: { numbers: unknown[]; total: number } }>(`${sim.baseUrl}/api/v1/numbers`, { token });
      expect(numbers.body.data).toMatchObject({ total: 2 });
      expect(numbers.body.data.numbers).toHaveLength(2);
      expect(sim.truth('biz-1').calls).toHaveLength(600);

      // Records that arrive during the outage are listed by the same rule; the hidden ones stay hidden.
      sim.addCalls('biz-1', 3);
      expect(await cursorTotal(sim)).toBe(201);

      sim.setHostile({ listShare: 1 });
      const whole = await offsetWalk(sim.baseUrl, sim.businesses[0]!.apiKey, 100);
      expect(whole.total).toBe(603);
      expect(whole.ids).toEqual(sim.truth('biz-1').calls.map((c) => c.id));
    } finally {
      await sim.close();
    }
  });
});

describe('simulator hostile.listShare on legacy lists', () => {
  it('/sms answers the same share with its total', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 10, rateLimit: false, hostile: { listShare: 1 / 3 } });
    try {
      const sms = await call<{ messages: { id: string }[]; total: number }>(`${sim.baseUrl}/api/v1/sms?limit=500`, { token: sim.businesses[0]!.apiKey });
      const all = sim.truth('biz-1').sms.map((m) => m.id);
      expect(sms.body.total).toBe(Math.floor(all.length / 3));
      expect(sms.body.messages.map((m) => m.id)).toEqual(all.filter((_, i) => i % 3 === 2));
    } finally {
      await sim.close();
    }
  });
});
