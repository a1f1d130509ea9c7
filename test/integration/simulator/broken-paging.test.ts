import { afterEach, describe, expect, it } from 'vitest';
import type { BrokenPaging, Simulator } from '../../../simulator/index.js';
import { startSimulator } from '../../../simulator/index.js';
import type { CallsPage } from './http.js';
import { call, cursorWalk } from './http.js';

type Page = CallsPage['data'] & { page?: number; per_page?: number };

describe('simulator broken paging', () => {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  async function start(broken: Partial<BrokenPaging>, extra: { v1LimitCap?: number } = {}): Promise<(query: string) => Promise<Page>> {
    const s = await startSimulator({ businesses: 1, calls: 250, rateLimit: false, brokenPaging: broken, ...extra });
    sim = s;
    return async (query) => {
      const res = await call<{ data: Page }>(`${s.baseUrl}/api/v1/calls?${query}`, { token: s.businesses[0]!.apiKey });
      if (res.status !== 200) throw new Error(`status ${res.status}: ${res.text}`);
      return res.body.data;
    };
  }
  const ids = (p: Page): string[] => p.calls.map((c) => c.id);
  const truthIds = (): string[] => sim!.truth('biz-1').calls.map((c) => c.id);

  it('stuckCursor: after the first page, next_cursor is the cursor sent, so the same page comes back for ever', async () => {
    const get = await start({ stuckCursor: true });
    const first = await get('limit=50');
    expect(ids(first)).toEqual(truthIds().slice(0, 50));
    const a = first.next_cursor!;
    const second = await get(`limit=50&cursor=${a}`);
    expect(second.next_cursor).toBe(a);
    expect(second.has_more).toBe(true);
    const again = await get(`limit=50&cursor=${second.next_cursor}`);
    expect(ids(again)).toEqual(ids(second));
    expect(ids(second)).toEqual(truthIds().slice(50, 100));
  });

  it('cyclingCursor: next_cursor alternates between the cursors of pages 2 and 3', async () => {
    const get = await start({ cyclingCursor: true });
    let page = await get('limit=40');
    const seen: string[][] = [];
    for (let i = 0; i < 5; i++) {
      expect(page.has_more).toBe(true);
      page = await get(`limit=40&cursor=${page.next_cursor}`);
      seen.push(ids(page));
    }
    const [p2, p3] = [truthIds().slice(40, 80), truthIds().slice(80, 120)];
    expect(seen).toEqual([p2, p3, p2, p3, p2]);
  });

  it('emptyPagesForever: past the last call, has_more stays true with empty pages in every mode', async () => {
    const get = await start({ emptyPagesForever: true });
    let page = await get('limit=100');
    const walked = [...ids(page)];
    for (let i = 0; i < 5; i++) {
      expect(page.has_more).toBe(true);
      page = await get(`limit=100&cursor=${page.next_cursor}`);
      walked.push(...ids(page));
    }
    expect(walked).toEqual(truthIds());
    expect(page.calls).toEqual([]);
    expect(await get('limit=100&offset=5000')).toMatchObject({ calls: [], has_more: true, total: 250 });
    expect(await get('page=9&per_page=100')).toMatchObject({ calls: [], has_more: true });
  });

  it('ignoreOffset: every offset and page request gets the first page', async () => {
    const get = await start({ ignoreOffset: true });
    const first = ids(await get('limit=30&offset=0'));
    expect(first).toEqual(truthIds().slice(0, 30));
    expect(ids(await get('limit=30&offset=90'))).toEqual(first);
    const page = await get('page=4&per_page=30');
    expect(ids(page)).toEqual(first);
    expect(page.has_more).toBe(true);
    expect(page.page).toBe(1);
  });

  it('negativeTotal: total is -1 in every mode while records and has_more stay right', async () => {
    const get = await start({ negativeTotal: true });
    for (const query of ['limit=10&offset=0', 'page=1&per_page=10', 'limit=10']) {
      const page = await get(query);
      expect(page.total).toBe(-1);
      expect(page.has_more).toBe(true);
      expect(ids(page)).toEqual(truthIds().slice(0, 10));
    }
    expect((await get('limit=10&offset=240')).has_more).toBe(false);
  });

  it('setBrokenPaging switches a behaviour off: the fixed server walks every call once', async () => {
    const get = await start({ stuckCursor: true });
    const first = await get('limit=100');
    expect((await get(`limit=100&cursor=${first.next_cursor}`)).next_cursor).toBe(first.next_cursor);
    sim!.setBrokenPaging({ stuckCursor: false });
    expect(await cursorWalk(sim!.baseUrl, sim!.businesses[0]!.apiKey, 100)).toEqual(truthIds());
  });

  it('v1LimitCap: at most N per page whatever limit or per_page asks; pages count in the capped size', async () => {
    const get = await start({}, { v1LimitCap: 30 });
    const offsetPage = await get('limit=500&offset=0');
    expect(ids(offsetPage)).toEqual(truthIds().slice(0, 30));
    expect(offsetPage).toMatchObject({ total: 250, has_more: true });
    const page2 = await get('page=2&per_page=500');
    expect(ids(page2)).toEqual(truthIds().slice(30, 60));
    expect(page2.per_page).toBe(30);
    expect(await cursorWalk(sim!.baseUrl, sim!.businesses[0]!.apiKey, 500)).toEqual(truthIds());
    const sms = await call<{ messages: unknown[] }>(`${sim!.baseUrl}/api/v1/sms?limit=500`, { token: sim!.businesses[0]!.apiKey });
    expect(sms.body.messages).toHaveLength(30);
    expect((await get('limit=20&offset=0')).calls).toHaveLength(20);
  });
});
