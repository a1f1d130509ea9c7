import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../simulator/index.js';
import { startSimulator } from '../../../simulator/index.js';
import type { CallsPage } from './http.js';
import { call, cursorWalk, offsetWalk } from './http.js';

describe('simulator v1Order newest', () => {
  let sim: Simulator;
  const token = (n: number): string => sim.businesses[n]!.apiKey;
  const url = (query: string): string => `${sim.baseUrl}/api/v1/calls?${query}`;

  beforeAll(async () => {
    sim = await startSimulator({ calls: 777, rateLimit: false, businesses: 4, v1Order: 'newest' });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('cursor, offset and page modes all serve newest first, equal to the truth', async () => {
    const expected = sim.truth('biz-1').calls.map((c) => c.id);
    const created = sim.truth('biz-1').calls.map((c) => (c.raw as { created_at: string }).created_at);
    expect(created).toEqual([...created].sort().reverse());
    expect(expected).toHaveLength(777);
    expect(await cursorWalk(sim.baseUrl, token(0), 100)).toEqual(expected);
    expect((await offsetWalk(sim.baseUrl, token(0), 100)).ids).toEqual(expected);
    const byPage: string[] = [];
    for (let page = 1; ; page++) {
      const res = await call<CallsPage>(url(`page=${page}&per_page=250`), { token: token(0) });
      expect(res.body.data.total).toBe(777);
      byPage.push(...res.body.data.calls.map((c) => c.id));
      if (!res.body.data.has_more) break;
      expect(res.body.data.calls).toHaveLength(250);
    }
    expect(byPage).toEqual(expected);
  });

  it('new calls appear at offset 0, so an offset walk sees records shift by the number of arrivals', async () => {
    const first = await call<CallsPage>(url('limit=10&offset=0'), { token: token(1) });
    sim.addCalls('biz-2', 3);
    const head = await call<CallsPage>(url('limit=10&offset=0'), { token: token(1) });
    expect(head.body.data.total).toBe(780);
    expect(head.body.data.calls.slice(0, 3).map((c) => c.id)).toEqual(
      sim
        .truth('biz-2')
        .calls.slice(0, 3)
        .map((c) => c.id),
    );
    expect(head.body.data.calls.slice(3).map((c) => c.id)).toEqual(first.body.data.calls.slice(0, 7).map((c) => c.id));
    const second = await call<CallsPage>(url('limit=10&offset=10'), { token: token(1) });
    // Three of the first page's calls are served again on the second page.
    expect(second.body.data.calls.slice(0, 3).map((c) => c.id)).toEqual(first.body.data.calls.slice(7).map((c) => c.id));
  });

  it('an offset walk during arrivals repeats calls and never reaches the new ones', async () => {
    const before = sim.truth('biz-3').calls.map((c) => c.id);
    const ids = (await offsetWalk(sim.baseUrl, token(2), 100, () => sim.addCalls('biz-3', 5))).ids;
    expect(new Set(ids).size).toBeLessThan(ids.length);
    expect(new Set(ids)).toEqual(new Set(before));
  });

  it('a cursor walk is stable under arrivals: every call present at the start exactly once, none of the new ones', async () => {
    const before = sim.truth('biz-4').calls.map((c) => c.id);
    const ids = await cursorWalk(sim.baseUrl, token(3), 64, () => sim.addCalls('biz-4', 9));
    expect(ids).toEqual(before);
    const after = sim.truth('biz-4').calls.map((c) => c.id);
    expect(after.length - before.length).toBe(9 * Math.floor(776 / 64));
    expect(after.slice(after.length - before.length)).toEqual(before);
    const fresh = await call<CallsPage>(url('limit=3'), { token: token(3) });
    expect(fresh.body.data.calls.map((c) => c.id)).toEqual(after.slice(0, 3));
  });

  it('the cursor of the last page is at the oldest end: resuming with it finds no new calls', async () => {
    let cursor = '';
    let last: CallsPage;
    do {
      last = (await call<CallsPage>(url(`limit=500&cursor=${cursor}`), { token: token(0) })).body;
      cursor = last.data.next_cursor ?? '';
    } while (last.data.has_more);
    sim.addCalls('biz-1', 4);
    const resumed = await call<CallsPage>(url(`limit=500&cursor=${cursor}`), { token: token(0) });
    expect(resumed.body.data.calls).toEqual([]);
    expect(resumed.body.data.has_more).toBe(false);
    expect(resumed.body.data.total).toBe(781);
  });

  it('/sms is newest first too, matching the truth', async () => {
    const res = await call<{ messages: { id: string; created_at: string }[]; total: number }>(`${sim.baseUrl}/api/v1/sms?limit=500`, { token: token(0) });
    expect(res.body.messages.map((m) => m.id)).toEqual(sim.truth('biz-1').sms.map((m) => m.id));
    const created = res.body.messages.map((m) => m.created_at);
    expect(created).toEqual([...created].sort().reverse());
    expect(created[0]).not.toBe(created[created.length - 1]);
  });
});
