import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../sink/sink.js';
import { UpstreamError } from '../upstream/index.js';
import { collect, context, descriptorFor, ids, records, type Raw } from '../../../test/support/fake-lists.js';
import { walkers, type Query } from './index.js';

/** An oldest-first list served by offset, by page, and by a cursor that is the offset in disguise. */
function oldestFirst(all: Raw[]) {
  return (query: Query): JsonObject => {
    const size = Number(query.limit ?? query.per_page);
    const start =
      query.cursor !== undefined
        ? Number(String(query.cursor).slice(1))
        : query.page !== undefined
          ? (Number(query.page) - 1) * size
          : Number(query.offset ?? 0);
    const slice = all.slice(start, start + size);
    const end = start + slice.length;
    return { calls: slice, total: all.length, has_more: end < all.length, next_cursor: `c${end}` };
  };
}

describe('cursor walker', () => {
  it('walks to the end and resumes from the stored cursor with one request when nothing is new', async () => {
    const all = records(5);
    const first = context(oldestFirst(all));
    const pages = await collect(walkers.cursor(first.walkContext, undefined));
    expect(ids(pages)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    const position = pages.at(-1)?.position;
    expect(position).toEqual({ mode: 'cursor', cursor: 'c5', offset: 5, order: 'oldest_first' });
    const again = context(oldestFirst(all));
    expect(ids(await collect(walkers.cursor(again.walkContext, position)))).toEqual([]);
    expect(again.queries).toHaveLength(1);
  });

  it('falls back to offset one page before its mark when the server rejects the cursor', async () => {
    const all = records(7);
    const serve = oldestFirst(all);
    const rejecting = context((query) => {
      if (query.cursor !== undefined) {
        throw new UpstreamError('cursor expired', { code: 'BAD_REQUEST', kind: 'invalid', status: 400, request: { method: 'GET', host: 'h', path: '/calls' } });
      }
      return serve(query);
    });
    const pages = await collect(walkers.cursor(rejecting.walkContext, { mode: 'cursor', cursor: 'old', offset: 5, order: 'oldest_first' }));
    expect(rejecting.queries[1]).toEqual({ limit: 2, offset: 3 });
    expect(ids(pages)).toEqual(['r3', 'r4', 'r5', 'r6']);
    expect(rejecting.warnings[0]).toMatch(/cursor rejected.*offset from 3/);
  });

  it('does not swallow other failures', async () => {
    const failing = context(() => {
      throw new UpstreamError('nope', { code: 'UNAUTHORIZED', kind: 'auth', status: 401, request: { method: 'GET', host: 'h', path: '/calls' } });
    });
    await expect(collect(walkers.cursor(failing.walkContext, { mode: 'cursor', cursor: 'c2', offset: 2 }))).rejects.toThrow('nope');
  });
});

describe('page walker', () => {
  it('resumes inside a partly consumed page without repeating stored records', async () => {
    const walk = context(oldestFirst(records(5)), { descriptor: descriptorFor('page') });
    const pages = await collect(walkers.page(walk.walkContext, { mode: 'offset', offset: 3, order: 'oldest_first' }));
    expect(walk.queries[0]).toEqual({ page: 2, per_page: 2 });
    expect(ids(pages)).toEqual(['r3', 'r4']);
    expect(pages.at(-1)?.position).toEqual({ mode: 'offset', offset: 5, order: 'oldest_first' });
  });
});

describe('v2 high-water walker', () => {
  const newestFirst =
    (all: Raw[]) =>
    (query: Query): JsonObject => ({ calls: [...all].reverse().slice(0, Number(query.limit)) });

  it('takes only records after the high-water mark, including new ones in the same second', async () => {
    const all = [...records(4), { id: 'late', created_at: '2025-01-01T00:00:03Z' }];
    const walk = context(newestFirst(all));
    const position = { mode: 'high-water', highWater: '2025-01-01T00:00:03Z', idsAtHighWater: ['r3'], limit: 2 };
    const pages = await collect(walkers['v2-newest-first'](walk.walkContext, position));
    expect(ids(pages)).toEqual(['late']);
    expect(pages[0]?.position).toMatchObject({ highWater: '2025-01-01T00:00:03Z', idsAtHighWater: ['r3', 'late'] });
    expect(pages[0]?.warning).toBeUndefined();
  });

  it('widens the limit when a full response holds nothing already stored', async () => {
    const all = records(10);
    const walk = context(newestFirst(all));
    const pages = await collect(
      walkers['v2-newest-first'](walk.walkContext, { mode: 'high-water', highWater: all[5]?.created_at ?? '', idsAtHighWater: ['r5'], limit: 2 }),
    );
    expect(walk.queries.map((query) => query.limit)).toEqual([2, 8]);
    expect(ids(pages)).toEqual(['r9', 'r8', 'r7', 'r6']);
    expect(pages[0]?.warning).toBeUndefined();
  });

  it('reports a gap when even the largest limit reaches nothing already stored', async () => {
    const all = records(20);
    const walk = context(newestFirst(all));
    const pages = await collect(
      walkers['v2-newest-first'](walk.walkContext, { mode: 'high-water', highWater: all[2]?.created_at ?? '', idsAtHighWater: ['r2'], limit: 2 }),
    );
    expect(ids(pages)).toHaveLength(8);
    expect(pages[0]?.warning).toMatch(/gap/);
  });

  it('halves a limit the server refuses and keeps going', async () => {
    const all = records(3);
    const walk = context((query) => {
      if (Number(query.limit) > 4)
        throw new UpstreamError('limit too large', { code: 'BAD_REQUEST', kind: 'invalid', status: 400, request: { method: 'GET', host: 'h', path: '/v' } });
      return newestFirst(all)(query);
    });
    const pages = await collect(walkers['v2-newest-first'](walk.walkContext, undefined));
    expect(walk.queries.map((query) => query.limit)).toEqual([8, 4]);
    expect(ids(pages)).toEqual(['r2', 'r1', 'r0']);
  });
});

describe('revisit of recent records', () => {
  // Records one second apart; the clock stands 3 s after the last one, the window is 4 s.
  const all = records(10);
  const now = Date.parse('2025-01-01T00:00:12Z');

  it('remembers page starts and, when due, reads the window again from the page before it', async () => {
    const { withRevisit } = await import('./index.js');
    const first = context(oldestFirst(all));
    const walker = withRevisit(walkers.cursor, { windowMs: 4_000, everyMs: 60_000, now: () => now });
    const pages = await collect(walker(first.walkContext, undefined));
    const stored = pages.at(-1)?.position;
    // Page starts r6 (00:06, before the window) and r8 (00:08, inside) remain.
    expect(stored?.marks).toEqual([
      [6, '2025-01-01T00:00:06Z'],
      [8, '2025-01-01T00:00:08Z'],
    ]);

    const notDue = context(oldestFirst(all));
    await collect(walker(notDue.walkContext, stored));
    expect(notDue.queries).toHaveLength(1);

    const due = context(oldestFirst(all), {});
    const later = withRevisit(walkers.cursor, { windowMs: 4_000, everyMs: 0, now: () => now });
    const revisited = await collect(later(due.walkContext, stored));
    expect(due.queries.slice(0, 2)).toEqual([
      { limit: 2, offset: 6 },
      { limit: 2, offset: 8 },
    ]);
    expect(ids(revisited)).toEqual(['r6', 'r7', 'r8', 'r9']);
    expect(revisited.at(-1)?.position).toMatchObject({ revisitedAt: now, cursor: 'c10', offset: 10 });
  });
});

describe('stored positions', () => {
  it.each([
    ['cursor', { mode: 'cursor', offset: 5 }, /stream "calls": stored position .*\(cursor: /],
    ['offset', { mode: 'offset', offset: -3 }, /offset: Too small/],
    ['page', { offset: 3 }, /mode: /],
    ['v2-newest-first', { mode: 'high-water', highWater: 7, idsAtHighWater: [], limit: 2 }, /highWater: /],
  ] as const)('%s: a position it did not write stops the stream instead of starting over', async (mode, position, message) => {
    const walk = context(oldestFirst(records(3)));
    await expect(collect(walkers[mode](walk.walkContext, position as JsonObject))).rejects.toThrow(message);
    expect(walk.queries).toEqual([]);
  });

  it('treats an empty stored position as a first sync', async () => {
    const walk = context(oldestFirst(records(3)));
    expect(ids(await collect(walkers.offset(walk.walkContext, {})))).toEqual(['r0', 'r1', 'r2']);
  });
});
