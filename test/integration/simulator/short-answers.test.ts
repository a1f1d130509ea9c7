import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { call } from './http.js';

type CallsPage = { data: { calls: Array<{ id: string }>; total: number; has_more: boolean; next_cursor?: string; per_page?: number } };

describe('simulator hostile.shortPages and hostile.hugeCursorBytes', () => {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  const page = (s: Simulator, query: string) => call<CallsPage>(`${s.baseUrl}/api/v1/calls?${query}`, { token: s.businesses[0]!.apiKey });

  it('shortPages: the next answers alone are cut short, has_more and the cursor agreeing; page numbers keep the size asked', async () => {
    sim = await startSimulator({ businesses: 1, calls: 30, voicemails: 1, numbers: 1, rateLimit: false, hostile: { shortPages: { pages: 2, records: 1 } } });
    const ids = sim.truth('biz-1').calls.map((c) => c.id);
    const cut = await page(sim, 'limit=10');
    expect(cut.body.data.calls.map((c) => c.id)).toEqual(ids.slice(0, 1));
    expect(cut.body.data.has_more).toBe(true);
    const next = await page(sim, `limit=10&cursor=${encodeURIComponent(cut.body.data.next_cursor ?? '')}`);
    expect(next.body.data.calls.map((c) => c.id)).toEqual(ids.slice(1, 2));
    // The count ran out: answers are whole again, and page 2 is where a page of 10 says.
    const whole = await page(sim, 'page=2&per_page=10');
    expect(whole.body.data.calls.map((c) => c.id)).toEqual(ids.slice(10, 20));
  });

  it('hugeCursorBytes: next_cursor padded to the size; sent back, the server refuses the request with 431', async () => {
    sim = await startSimulator({ businesses: 1, calls: 30, voicemails: 1, numbers: 1, rateLimit: false, hostile: { hugeCursorBytes: 64 * 1024 } });
    const first = await page(sim, 'limit=10');
    const cursor = first.body.data.next_cursor ?? '';
    expect(cursor).toHaveLength(64 * 1024);
    expect((await page(sim, `limit=10&cursor=${encodeURIComponent(cursor)}`)).status).toBe(431);
  });
});
