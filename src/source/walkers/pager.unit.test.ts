import { describe, expect, it } from 'vitest';
import type { PagingMode } from '../streams/stream-descriptor.js';
import { descriptorFor, FakeList, Mirror, type Misbehaviour } from '../../../test/support/fake-lists.js';
import { walkers } from './index.js';

const walk = walkers.cursor;

describe.each([
  ['cursor', { stuckCursor: true }, /GET \/calls: next_cursor repeats the cursor just sent \("c\d+"\)/],
  ['cursor', { cyclingCursor: true }, /GET \/calls: next_cursor "c\d+" was already used in this walk \(the cursors cycle\)/],
  [
    'cursor',
    { cyclingCursor: true, mintCursors: true },
    /GET \/calls: page 4 repeats page 2 of this walk \(the same 2 records from id "r\d"; the cursors cycle/,
  ],
  ['cursor', { emptyPagesWithMore: true }, /GET \/calls: the server says there are more records but sent an empty page/],
  ['offset', { emptyPagesWithMore: true }, /GET \/calls: the server says there are more records but sent an empty page/],
  ['offset', { ignoreOffset: true }, /GET \/calls: the page holds only records of the previous page/],
  ['page', { ignoreOffset: true }, /GET \/calls: the page holds only records of the previous page/],
  ['offset', { total: -1 }, /GET \/calls: "total" is -1, not a count of records/],
] as const)('%s paging against %j', (mode: PagingMode, bad: Misbehaviour, message) => {
  it.each(['oldest', 'newest'] as const)('list %s first: stops naming the symptom, the position never passes what was stored', async (order) => {
    const list = new FakeList(9, order);
    list.bad = bad;
    const mirror = new Mirror();
    const options = { descriptor: descriptorFor(mode), pageSize: 2 };
    await expect(mirror.run(walk, list, options)).rejects.toThrow(message);
    // Nothing looped: a handful of requests, and the stored offset counts only records stored.
    expect(mirror.requests).toBeGreaterThan(0);
    expect(mirror.requests).toBeLessThanOrEqual(6);
    const offset = Number(mirror.position?.offset ?? 0);
    expect(offset).toBeLessThanOrEqual(mirror.stored.size);
    // Cursor and offset say the same place (a cursor is a boundary, counted from the listed head),
    // or a later offset fallback would start past what the cursor walk reached.
    if (mirror.position?.mode === 'cursor') expect(listedAt(mirror.position.cursor, list)).toBe(offset);

    // Once the server is fixed the walk goes on from there and ends exact.
    list.bad = {};
    await mirror.run(walk, list, options);
    expect(mirror.missing(list)).toEqual([]);
  });
});

describe.each(['cursor', 'offset', 'page'] as const)('a server capping the page size silently (%s paging)', (mode) => {
  it.each(['oldest', 'newest'] as const)('list %s first: adopts the cap, keeps it, and misses nothing', async (order) => {
    const list = new FakeList(23, order);
    list.bad = { cap: 4 };
    const mirror = new Mirror();
    const options = { descriptor: descriptorFor(mode), pageSize: 10 };
    const first = await mirror.run(walk, list, options, 3);
    expect(first.warnings.filter((warning) => /caps the page size, going on with 4/.test(warning))).toHaveLength(1);
    expect(mirror.position?.pageCap).toBe(4);
    list.add(6);
    const rest = await mirror.run(walk, list, options);
    expect(mirror.missing(list)).toEqual([]);
    const sizes = rest.queries.map((query) => query.limit ?? query.per_page);
    // A page walk resuming past page 1 must ask with the cap; every other walk (here: finishing
    // the cut-off walk, then from the head) probes the configured size once, which costs no
    // request: the capped answer is a page like any other, and the cap is known again at once.
    expect(sizes.every((size) => size === 4 || size === 10)).toBe(true);
    expect(sizes.filter((size) => size === 10).length).toBeLessThanOrEqual(order === 'oldest' ? (mode === 'page' ? 0 : 1) : 2);
    expect(sizes.some((size, i) => size === 10 && sizes[i + 1] === 10)).toBe(false);
    expect(rest.warnings).toEqual([]);
    expect(mirror.position?.pageCap).toBe(4);
  });

  // A page walk that resumes past page 1 cannot probe for free (see `listPages`): it keeps a confirmed cap.
  it.each((['oldest', 'newest'] as const).filter((order) => mode !== 'page' || order === 'newest'))(
    'list %s first: a cap the server lifts is forgotten by the next walk',
    async (order) => {
      const list = new FakeList(23, order);
      list.bad = { cap: 4 };
      const mirror = new Mirror();
      const options = { descriptor: descriptorFor(mode), pageSize: 10 };
      await mirror.run(walk, list, options);
      expect(mirror.position?.pageCap).toBe(4);
      list.bad = {};
      list.add(40);
      await mirror.run(walk, list, options);
      expect(mirror.missing(list)).toEqual([]);
      expect(mirror.position?.pageCap).toBeUndefined();
      list.add(30);
      const later = await mirror.run(walk, list, options);
      expect(later.queries.every((query) => (query.limit ?? query.per_page) === 10)).toBe(true);
    },
  );
});

describe.each(['cursor', 'offset', 'page'] as const)('one short page with more to come (%s paging)', (mode) => {
  it.each(['oldest', 'newest'] as const)('list %s first: the page size is not lowered, now or in later walks', async (order) => {
    const list = new FakeList(95, order);
    const mirror = new Mirror();
    const options = { descriptor: descriptorFor(mode), pageSize: 10 };
    // A first page of 10, then one answer cut to a single record.
    await mirror.run(walk, list, options, 1);
    list.bad = { shortOnce: 1 };
    const first = await mirror.run(walk, list, options);
    expect(mirror.missing(list)).toEqual([]);
    expect(first.warnings).toEqual([]);
    expect(mirror.position?.pageCap).toBeUndefined();
    expect(first.queries.every((query) => (query.limit ?? query.per_page) === 10)).toBe(true);
    // 85 records left at 10 a page: 9 pages, one more for the short answer and one for asking again.
    expect(first.queries.length).toBeLessThanOrEqual(11);
    list.add(50);
    const later = await mirror.run(walk, list, options);
    expect(mirror.missing(list)).toEqual([]);
    expect(later.queries.every((query) => (query.limit ?? query.per_page) === 10)).toBe(true);
    expect(later.queries.length).toBeLessThanOrEqual(7);
  });
});

/** Where a fake list's cursor points, counted in records from the head the list is listed from. */
function listedAt(cursor: unknown, list: FakeList): number {
  if (typeof cursor !== 'string') throw new Error(`expected a cursor, found ${JSON.stringify(cursor)}`);
  const boundary = Number.parseInt(cursor.slice(1), 10);
  return list.order === 'oldest' ? boundary : list.all.length - boundary;
}

describe('a cursor list whose last page carries no next_cursor', () => {
  it('the cursor kept to resume by and the stored offset say the same place, run after run', async () => {
    const list = new FakeList(7, 'oldest');
    list.bad = { noCursorOnLastPage: true };
    const mirror = new Mirror();
    const options = { descriptor: descriptorFor('cursor'), pageSize: 2, order: 'oldest_first' as const };
    for (let run = 0; run < 3; run += 1) {
      await mirror.run(walk, list, options);
      list.add(1);
    }
    expect(mirror.position?.mode).toBe('cursor');
    expect(Number(mirror.position?.offset)).toBe(listedAt(mirror.position?.cursor, list));
    expect(Number(mirror.position?.offset)).toBeLessThanOrEqual(mirror.stored.size);
  });
});

describe('a cursor position stored with its offset counted ahead (before cursor and offset were kept in step)', () => {
  it.each([false, true])('comes back in step at the end of the next walk (next_cursor on the last page: %s)', async (cursorOnLast) => {
    const list = new FakeList(7, 'oldest');
    list.bad = { noCursorOnLastPage: !cursorOnLast };
    const mirror = new Mirror();
    mirror.stored.add('r0').add('r1').add('r2').add('r3');
    mirror.position = { mode: 'cursor', cursor: 'c4', offset: 12, order: 'oldest_first' };
    await mirror.run(walk, list, { descriptor: descriptorFor('cursor'), pageSize: 2, order: 'oldest_first' });
    expect(mirror.missing(list)).toEqual([]);
    expect(Number(mirror.position.offset)).toBe(listedAt(mirror.position.cursor, list));
  });
});

describe('a cursor that expires in the middle of a walk', () => {
  it.each(['oldest', 'newest'] as const)('list %s first: the overlap page after the fallback is no repeat error', async (order) => {
    const { UpstreamError } = await import('../upstream/index.js');
    const list = new FakeList(10, order);
    let sent = 0;
    const serve = list.serve;
    list.serve = (query) => {
      if (query.cursor !== undefined && (sent += 1) === 2) {
        throw new UpstreamError('cursor expired', { code: 'BAD_REQUEST', kind: 'invalid', status: 400, request: { method: 'GET', host: 'h', path: '/calls' } });
      }
      return serve(query);
    };
    const mirror = new Mirror();
    const run = await mirror.run(walk, list, { pageSize: 2 });
    expect(run.warnings).toEqual([expect.stringMatching(/stored cursor rejected/)]);
    expect(mirror.missing(list)).toEqual([]);
  });
});
