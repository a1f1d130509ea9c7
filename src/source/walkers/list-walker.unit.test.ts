import { describe, expect, it } from 'vitest';
import type { PagingMode } from '../streams/stream-descriptor.js';
import { collect, context, descriptorFor, FakeList, ids, Mirror } from '../../../test/support/fake-lists.js';
import { UpstreamError } from '../upstream/index.js';
import { walkerFor, walkers } from './index.js';

const walk = walkers.cursor;
const modes: PagingMode[] = ['cursor', 'offset', 'page'];
const orders = ['oldest', 'newest'] as const;
const cases = modes.flatMap((mode) => orders.map((order) => [mode, order] as const));

describe.each(cases)('%s paging, list %s first, order auto', (mode, order) => {
  const options = { descriptor: descriptorFor(mode), pageSize: 3 };

  it('first sync, arrivals, second sync: exact, and the second costs in proportion to the new records', async () => {
    const list = new FakeList(10, order);
    const mirror = new Mirror();
    await mirror.run(walk, list, options);
    expect(mirror.missing(list)).toEqual([]);
    expect(mirror.position?.order).toBe(`${order}_first`);

    list.add(7);
    const second = await mirror.run(walk, list, options);
    expect(mirror.missing(list)).toEqual([]);
    // 7 new records are 3 pages of 3; one more page reaches what is stored (or finds the end).
    expect(second.queries.length).toBeLessThanOrEqual(4);

    const idle = await mirror.run(walk, list, options);
    expect(idle.queries.length).toBeLessThanOrEqual(mode === 'page' && order === 'oldest' ? 2 : 1);
    expect(mirror.missing(list)).toEqual([]);
  });

  it('a first sync killed twice with arrivals between the kills, then resumed: exact', async () => {
    const list = new FakeList(20, order);
    const mirror = new Mirror();
    await mirror.run(walk, list, options, 2);
    list.add(4);
    await mirror.run(walk, list, options, 2);
    list.add(5);
    expect(mirror.missing(list).length).toBeGreaterThan(0);
    await mirror.run(walk, list, options);
    expect(mirror.missing(list)).toEqual([]);
  });

  it('with a revisit due, reads the recent window again and stays exact', async () => {
    const list = new FakeList(12, order);
    const mirror = new Mirror();
    const now = Date.parse('2025-01-01T00:00:14Z');
    // As the engine does: the revisit settings go to the walker and into the context.
    const notDue = { windowMs: 5_000, everyMs: 60_000, now: () => now };
    await mirror.run(walkerFor(mode, notDue), list, { ...options, revisit: notDue });
    list.add(2);
    const due = { ...notDue, everyMs: 0 };
    const run = await mirror.run(walkerFor(mode, due), list, { ...options, revisit: due });
    expect(mirror.missing(list)).toEqual([]);
    // The window reaches back to r9 (00:09): at most the window's pages and one more are read.
    expect(run.queries.length).toBeLessThanOrEqual(5);
    expect(run.queries.length).toBeGreaterThanOrEqual(2);
  });
});

describe('newest-first list walks', () => {
  it('an incremental run walks from the head down to the stored head and no further', async () => {
    const list = new FakeList(30, 'newest');
    const mirror = new Mirror();
    await mirror.run(walk, list, { pageSize: 5 });
    list.add(7);
    const run = await mirror.run(walk, list, { pageSize: 5 });
    expect(run.queries).toEqual([{ limit: 5, cursor: undefined }, expect.objectContaining({ limit: 5 })]);
    expect(mirror.missing(list)).toEqual([]);
    expect(mirror.position).toMatchObject({ order: 'newest_first', head: { createdAt: list.all.at(-1)?.created_at } });
    expect(mirror.position?.descent).toBeUndefined();
  });

  it('the interrupted first sync finishes its deep walk, then picks up what arrived at the head', async () => {
    const list = new FakeList(9, 'newest');
    const mirror = new Mirror();
    await mirror.run(walk, list, { pageSize: 3 }, 1);
    expect(mirror.position?.descent).toMatchObject({ top: { ids: ['r8', 'r7', 'r6'] }, stopAt: null });
    list.add(2);
    const run = await mirror.run(walk, list, { pageSize: 3 });
    expect(mirror.missing(list)).toEqual([]);
    // Two deep pages, then the head page (it holds the stored head r8 and stops there).
    expect(run.queries).toHaveLength(3);
  });

  it('with order: newest_first configured, the first run needs no evidence from the records', async () => {
    const list = new FakeList(1, 'newest');
    const mirror = new Mirror();
    await mirror.run(walk, list, { order: 'newest_first' });
    list.add(3);
    await mirror.run(walk, list, { order: 'newest_first' });
    expect(mirror.missing(list)).toEqual([]);
  });

  it('a one-record list (order not shown) still gets every later arrival, in either order', async () => {
    for (const order of orders) {
      const list = new FakeList(1, order);
      const mirror = new Mirror();
      await mirror.run(walk, list, {});
      expect(mirror.position?.order).toBeUndefined();
      list.add(5);
      await mirror.run(walk, list, {});
      expect(mirror.missing(list), order).toEqual([]);
      expect(mirror.position?.order).toBe(`${order}_first`);
    }
  });

  it('one step against the order (timestamps not quite in list order) is no contradiction', async () => {
    const page = {
      calls: [
        { id: 'a', created_at: '2025-01-01T00:00:05Z' },
        { id: 'b', created_at: '2025-01-01T00:00:04Z' },
      ],
      has_more: false,
    };
    const run = context(() => page, { order: 'oldest_first' });
    expect(ids(await collect(walk(run.walkContext, undefined)))).toEqual(['a', 'b']);
  });

  it('records that contradict the configured order stop the stream with the fix', async () => {
    const list = new FakeList(6, 'newest');
    const run = context(list.serve, { order: 'oldest_first' });
    await expect(collect(walk(run.walkContext, undefined))).rejects.toThrow(
      /GET \/calls: the records come newest first, but the walk is configured oldest first; fix "order"/,
    );
  });
});

describe('positions stored before the order was known', () => {
  it('an oldest-first list goes on from the stored cursor after one look at the head', async () => {
    const list = new FakeList(5, 'oldest');
    list.add(2);
    const run = context(list.serve);
    const pages = await collect(walk(run.walkContext, { mode: 'cursor', cursor: 'c4', offset: 4 }));
    expect(run.queries).toEqual([
      { limit: 2, cursor: undefined },
      { limit: 2, cursor: 'c4' },
      { limit: 2, cursor: 'c6' },
    ]);
    expect(ids(pages)).toEqual(['r0', 'r1', 'r4', 'r5', 'r6']);
    expect(pages.at(-1)?.position).toMatchObject({ order: 'oldest_first', offset: 7 });
  });

  it('a newest-first list is walked whole once (nothing tells where stored records end)', async () => {
    const list = new FakeList(6, 'newest');
    const mirror = new Mirror();
    mirror.position = { mode: 'cursor', cursor: 'c0', offset: 6 };
    list.add(3);
    await mirror.run(walk, list, {});
    expect(mirror.missing(list)).toEqual([]);
    expect(mirror.position).toMatchObject({ order: 'newest_first' });
  });
});

describe('what an operator sees of a position', () => {
  it('names the detected order, a walk under way and learned caps', async () => {
    const { summarizePosition } = await import('./index.js');
    const list = new FakeList(9, 'newest');
    const mirror = new Mirror();
    await mirror.run(walk, list, { pageSize: 3 }, 1);
    expect(summarizePosition(mirror.position)).toEqual({ order: 'newest_first', walkInProgress: true, pageCap: undefined });
    await mirror.run(walk, list, { pageSize: 3 });
    expect(summarizePosition(mirror.position)).toMatchObject({ order: 'newest_first', walkInProgress: false });
    expect(summarizePosition({ mode: 'high-water', highWater: null, idsAtHighWater: [], limit: 5, serverCap: 5 })).toEqual({ serverCap: 5 });
    expect(summarizePosition({ nonsense: true })).toEqual({});
  });
});

describe('a cut-off newest-first walk whose stored cursor has expired', () => {
  it('goes on by offset one page back (arrivals only push records deeper) and ends exact', async () => {
    const list = new FakeList(12, 'newest');
    const mirror = new Mirror();
    await mirror.run(walk, list, { pageSize: 3 }, 2);
    list.add(4);
    const serve = list.serve;
    const expired = mirror.position?.cursor;
    const rejecting = new FakeList(0, 'newest');
    rejecting.serve = (query) => {
      if (expired !== undefined && query.cursor === expired) {
        throw new UpstreamError('cursor expired', { code: 'BAD_REQUEST', kind: 'invalid', status: 400, request: { method: 'GET', host: 'h', path: '/calls' } });
      }
      return serve(query);
    };
    rejecting.all.push(...list.all);
    const run = await mirror.run(walk, rejecting, { pageSize: 3 });
    expect(run.warnings[0]).toMatch(/stored cursor rejected .*resuming by offset from 3/);
    expect(mirror.missing(list)).toEqual([]);
  });
});
