import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../simulator/index.js';
import { startSimulator } from '../../../simulator/index.js';
import type { CallsPage } from './http.js';
import { call, cursorWalk } from './http.js';

describe('simulator /calls paging', () => {
  let sim: Simulator;
  let token: string;
  const url = (query: string): string => `${sim.baseUrl}/api/v1/calls?${query}`;

  beforeAll(async () => {
    sim = await startSimulator({ calls: 1234, rateLimit: false, businesses: 2 });
    token = sim.businesses[0]!.apiKey;
  });
  afterAll(async () => {
    await sim.close();
  });

  it('offset, page and cursor modes return the same calls, oldest first, matching total and truth', async () => {
    const truth = sim.truth('biz-1');
    const byCursor = await cursorWalk(sim.baseUrl, token, 500);
    const byOffset: string[] = [];
    for (let offset = 0; ; offset += 300) {
      const res = await call<CallsPage>(url(`limit=300&offset=${offset}`), { token });
      expect(res.body.data.total).toBe(1234);
      expect(res.body.data.next_cursor).toBeUndefined();
      byOffset.push(...res.body.data.calls.map((c) => c.id));
      if (!res.body.data.has_more) break;
    }
    const byPage: string[] = [];
    for (let page = 1; ; page++) {
      const res = await call<CallsPage>(url(`page=${page}&per_page=200`), { token });
      expect(res.body.data.total).toBe(1234);
      byPage.push(...res.body.data.calls.map((c) => c.id));
      if (!res.body.data.has_more) break;
    }
    const expected = truth.calls.map((c) => c.id);
    expect(byCursor).toEqual(expected);
    expect(byOffset).toEqual(expected);
    expect(byPage).toEqual(expected);
    const sorted = [...truth.calls].sort((a, b) => {
      const ca = (a.raw as { created_at: string }).created_at;
      const cb = (b.raw as { created_at: string }).created_at;
      return ca < cb ? -1 : ca > cb ? 1 : a.id < b.id ? -1 : 1;
    });
    expect(sorted.map((c) => c.id)).toEqual(expected);
  });

  it('serves each call exactly as the truth raw record', async () => {
    const res = await call<CallsPage>(url('limit=50&offset=100'), { token });
    expect(res.body.data.calls).toEqual(
      sim
        .truth('biz-1')
        .calls.slice(100, 150)
        .map((c) => c.raw),
    );
  });

  it('a request without offset or page starts a cursor walk with default limit 50', async () => {
    const res = await call<CallsPage>(url(''), { token });
    expect(res.body.data.calls).toHaveLength(50);
    expect(res.body.data.has_more).toBe(true);
    expect(typeof res.body.data.next_cursor).toBe('string');
  });

  it('a cursor walk while calls arrive skips and repeats nothing and ends with the new calls', async () => {
    const before = sim.truth('biz-2').calls.map((c) => c.id);
    const ids = await cursorWalk(sim.baseUrl, sim.businesses[1]!.apiKey, 100, () => sim.addCalls('biz-2', 7));
    expect(new Set(ids).size).toBe(ids.length);
    const after = sim.truth('biz-2').calls.map((c) => c.id);
    expect(ids).toEqual(after);
    expect(ids.slice(0, before.length)).toEqual(before);
    expect(after.length).toBeGreaterThan(before.length);
  });

  it('keeps next_cursor on the last page so a later run resumes with only new calls', async () => {
    const first = await call<CallsPage>(url('limit=500&offset=0'), { token });
    expect(first.status).toBe(200);
    let cursor = '';
    let last: CallsPage | undefined;
    do {
      last = (await call<CallsPage>(url(`limit=500&cursor=${cursor}`), { token })).body;
      cursor = last.data.next_cursor ?? '';
    } while (last.data.has_more);
    expect(cursor).not.toBe('');
    sim.addCalls('biz-1', 3);
    const resumed = await call<CallsPage>(url(`limit=500&cursor=${cursor}`), { token });
    expect(resumed.body.data.calls.map((c) => c.id)).toEqual(
      sim
        .truth('biz-1')
        .calls.slice(-3)
        .map((c) => c.id),
    );
  });

  it.each([
    ['limit=501', 'limit'],
    ['limit=0', 'limit'],
    ['per_page=501', 'per_page'],
    ['limit=10&offset=-1', 'offset'],
    ['cursor=abc&offset=10', 'cursor'],
    ['cursor=not-a-cursor', 'cursor'],
  ])('%s is a 400 with the ordinary error body', async (query, word) => {
    const res = await call<{ error: { code: string; message: string } }>(url(query), { token });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('400');
    expect(res.body.error.message).toContain(word);
  });

  it('a cursor edited by one character is rejected', async () => {
    const res = await call<CallsPage>(url('limit=5'), { token });
    const cursor = res.body.data.next_cursor ?? '';
    // A middle character: the last one of base64url may carry only padding bits, and an edit there can decode to the same bytes.
    const middle = Math.floor(cursor.length / 2);
    const edited = `${cursor.slice(0, middle)}${cursor[middle] === 'A' ? 'B' : 'A'}${cursor.slice(middle + 1)}`;
    expect((await call(url(`cursor=${edited}`), { token })).status).toBe(400);
  });

  it("a business cannot use another business's cursor", async () => {
    const res = await call<CallsPage>(url('limit=5'), { token });
    const other = await call(url(`cursor=${res.body.data.next_cursor}`), { token: sim.businesses[1]!.apiKey });
    expect(other.status).toBe(400);
  });
});

describe('simulator cursor expiry', () => {
  it('rejects a cursor older than cursorTtlMs with a 400 saying expired, and counts it', async () => {
    // The simulator's own clock, stepped by hand: a slow machine cannot age the cursor between the first two requests.
    let nowMs = Date.UTC(2026, 0, 1);
    const sim = await startSimulator({ businesses: 1, calls: 100, cursorTtlMs: 50, rateLimit: false, clock: () => nowMs });
    try {
      const token = sim.businesses[0]!.apiKey;
      const first = await call<CallsPage>(`${sim.baseUrl}/api/v1/calls?limit=10`, { token });
      nowMs += 50;
      const fresh = await call(`${sim.baseUrl}/api/v1/calls?limit=10&cursor=${first.body.data.next_cursor}`, { token });
      expect(fresh.status).toBe(200);
      expect(sim.counters().faults.expiredCursors).toBe(0);
      nowMs += 1;
      const res = await call<{ error: { message: string } }>(`${sim.baseUrl}/api/v1/calls?limit=10&cursor=${first.body.data.next_cursor}`, { token });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/expired/);
      expect(sim.counters().faults.expiredCursors).toBe(1);
    } finally {
      await sim.close();
    }
  });

  it('omits next_cursor on the last page when cursorOnLastPage is false', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 10, cursorOnLastPage: false, rateLimit: false });
    try {
      const res = await call<CallsPage>(`${sim.baseUrl}/api/v1/calls?limit=50`, { token: sim.businesses[0]!.apiKey });
      expect(res.body.data.has_more).toBe(false);
      expect(res.body.data.next_cursor).toBeUndefined();
    } finally {
      await sim.close();
    }
  });
});
