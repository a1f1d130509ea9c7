import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../sink/sink.js';
import { collect, context, descriptorFor, ids, records, type Raw } from '../../../test/support/fake-lists.js';
import { walkers, type Query } from './index.js';

const walk = walkers['v2-newest-first'];

/** A v2 list (newest first, `limit` only) that returns at most `cap` records whatever `limit` asks. */
function capped(all: Raw[], cap: number) {
  return (query: Query): JsonObject => ({ calls: [...all].reverse().slice(0, Math.min(cap, Number(query.limit))) });
}

describe('v2 walks against a server that caps limit silently', () => {
  it('a short response with nothing already stored is a gap; the cap is learned, stored and reported', async () => {
    const all = records(30);
    const first = context(capped(all, 5), { v2Limit: 4, v2MaxLimit: 50 });
    const mark = all[10]?.created_at ?? '';
    const pages = await collect(walk(first.walkContext, { mode: 'high-water', highWater: mark, idsAtHighWater: ['r10'], limit: 50 }));
    expect(pages[0]?.warning).toMatch(/\/calls: 5 records returned \(limit 50, server cap 5\) and none already stored; .*\(gap\)/);
    expect(first.warnings).toEqual([expect.stringMatching(/asked for 50 records, got 5 and none already stored; the server returns at most 5/)]);
    expect(pages[0]?.position).toMatchObject({ serverCap: 5 });

    // The next run asks within the cap, and a full answer that reaches the mark is no gap.
    const next = context(capped(all, 5), { v2Limit: 4, v2MaxLimit: 50 });
    const again = await collect(walk(next.walkContext, pages[0]?.position));
    expect(next.queries.map((query) => query.limit)).toEqual([5]);
    expect(again[0]?.warning).toBeUndefined();
    expect(next.warnings).toEqual([]);
  });

  it('a response cut to the old limit after widening is a gap too', async () => {
    const all = records(40);
    const walkContext = context(capped(all, 8), { v2Limit: 8, v2MaxLimit: 64 });
    const pages = await collect(walk(walkContext.walkContext, { mode: 'high-water', highWater: all[5]?.created_at ?? '', idsAtHighWater: ['r5'], limit: 8 }));
    expect(walkContext.queries.map((query) => query.limit)).toEqual([8, 32]);
    expect(pages[0]?.warning).toMatch(/gap/);
    expect(pages[0]?.position).toMatchObject({ serverCap: 8 });
  });
});

describe('a record dated in the future', () => {
  const now = Date.parse('2025-01-01T00:01:00Z');
  const skewed = { id: 'ahead', created_at: '2025-01-01T05:00:00Z' };

  it('is stored but never becomes the high-water mark, and is warned about once', async () => {
    const all = [...records(5), skewed];
    const serve = (query: Query): JsonObject => ({ calls: [...all].reverse().slice(0, Number(query.limit)) });
    const first = context(serve, { now: () => now, v2MaxLimit: 10 });
    const pages = await collect(walk(first.walkContext, undefined));
    expect(ids(pages)).toContain('ahead');
    expect(pages[0]?.position).toMatchObject({ highWater: '2025-01-01T00:00:04Z', future: ['ahead'] });
    expect(first.warnings).toEqual([expect.stringMatching(/record "ahead" is dated 2025-01-01T05:00:00Z, more than 60 min ahead/)]);

    all.splice(5, 0, ...records(3, 5));
    const second = context(serve, { now: () => now, v2MaxLimit: 10 });
    const later = await collect(walk(second.walkContext, pages[0]?.position));
    expect(ids(later)).toEqual(expect.arrayContaining(['r5', 'r6', 'r7']));
    expect(later[0]?.position).toMatchObject({ highWater: '2025-01-01T00:00:07Z' });
    expect(second.warnings).toEqual([]);
  });
});

describe('a v1 record dated in the future', () => {
  it('is left out of the head a newest-first walk stops at, so later arrivals still count as new', async () => {
    const { headMarkOf, reachesMark } = await import('./list-order.js');
    const head = headMarkOf(
      { ids: ['ahead', 'r2', 'r1'], createdAt: ['2099-01-01T00:00:00Z', '2025-01-01T00:00:02Z', '2025-01-01T00:00:01Z'] },
      '2026-01-01T00:00:00Z',
    );
    expect(head).toEqual({ createdAt: '2025-01-01T00:00:02Z', ids: ['r2', 'r1'], future: ['ahead'] });
    expect(reachesMark({ ids: ['ahead', 'r3'], createdAt: ['2099-01-01T00:00:00Z', '2025-01-01T00:00:03Z'] }, head ?? { createdAt: null, ids: [] })).toBe(
      false,
    );
  });
});

describe('records a v2 walk will not store again', () => {
  const all = [...records(6), { id: 'broken', created_at: 'not a date' }];
  const serve = (query: Query): JsonObject => ({ calls: [...all].reverse().slice(0, Number(query.limit)) });
  const stored = { mode: 'high-water', highWater: all[3]?.created_at ?? '', idsAtHighWater: ['r3'], limit: 10 };

  /** A walk whose records' dates are read as the stream's keys read them: a date that is no date reads as none. */
  function keyed(options: Parameters<typeof context>[1] = {}) {
    const descriptor = descriptorFor('v2-newest-first', {
      id: (raw) => (raw as Raw).id,
      createdAt: (raw) => (raw as Raw).created_at.replace(/^not a date$/, '') || undefined,
    });
    return context(serve, { v2Limit: 10, v2MaxLimit: 10, descriptor, ...options });
  }

  // The engine normalizes exactly the records a walk yields: those passed over never are.
  it('passes over records before the mark without handing them on to be normalized, and still sees the mark reached', async () => {
    const walk = keyed();
    const pages = await collect(walkers['v2-newest-first'](walk.walkContext, stored));
    expect(ids(pages)).toEqual(['broken', 'r5', 'r4']);
    expect(pages[0]?.warning).toBeUndefined();
    expect(pages[0]?.position).toMatchObject({ highWater: all[5]?.created_at, idsAtHighWater: ['r5'] });
    expect(walk.queries).toHaveLength(1);
  });

  it('hands on records of the revisit window, which ride along', async () => {
    const now = Date.parse('2025-01-01T00:00:05Z');
    const walk = keyed({ revisit: { windowMs: 4_000, everyMs: 60_000, now: () => now } });
    const pages = await collect(walkers['v2-newest-first'](walk.walkContext, stored));
    expect(ids(pages)).toEqual(['broken', 'r5', 'r4', 'r3', 'r2', 'r1']);
  });
});
