import { describe, expect, it } from 'vitest';
import type { BusinessStatus, StatusSnapshot, StreamState, StreamStatus } from '../../engine/state/index.js';
import { NOW, streamStatus } from '../../../test/support/status-fixtures.js';
import { parseStatusQuery, STATUS_PAGE_LIMIT, statusDocument, type StatusQuery } from './status-json.js';

function status(business: string, stream: string, state: StreamState = 'idle', lagSeconds: number | null = 30): StreamStatus {
  return streamStatus({ business, stream, state, lagSeconds });
}

function snapshot(count: number): StatusSnapshot {
  const businesses: BusinessStatus[] = Array.from({ length: count }, (_, i) => {
    const name = `biz-${String(i).padStart(5, '0')}`;
    const state: StreamState = i % 100 === 7 ? 'failed' : 'idle';
    return { name, failed: null, activity: [], streams: [status(name, 'calls', state), status(name, 'numbers', 'idle', i === 3 ? 4000 : 30)] };
  });
  businesses.push({ name: 'zz-stopped', failed: 'auth: 401', activity: [], streams: [] });
  return { generatedAt: NOW, businesses };
}

function query(text: string): StatusQuery {
  const parsed = parseStatusQuery(new URLSearchParams(text));
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

describe('/status document', () => {
  it('without a query keeps the whole document below the page limit, with the summary beside it', () => {
    const whole = snapshot(3);
    const document = statusDocument(whole, query(''), 300);
    expect(document.businesses).toEqual(whole.businesses);
    expect(document.nextCursor).toBeNull();
    expect(document.summary).toMatchObject({ businesses: 4, streams: 6, stoppedBusinesses: 1, needsPerson: 0 });
    expect(document.matched).toEqual({ businesses: 4, streams: 6 });
  });

  it('walks 10,000 businesses a page at a time with the cursor, each exactly once, in name order', () => {
    const whole = snapshot(10_000);
    const seen: string[] = [];
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const document = statusDocument(whole, query(cursor === '' ? 'limit=700' : `limit=700&cursor=${cursor}`), 300);
      expect(document.businesses.length).toBeLessThanOrEqual(700);
      seen.push(...document.businesses.map((b) => b.name));
      cursor = document.nextCursor;
      pages += 1;
    }
    expect(pages).toBe(Math.ceil(10_001 / 700));
    expect(seen).toEqual(whole.businesses.map((b) => b.name));
    // No query: at most STATUS_PAGE_LIMIT businesses and a cursor to the rest.
    const first = statusDocument(whole, query(''), 300);
    expect([first.businesses.length, first.nextCursor === null]).toEqual([STATUS_PAGE_LIMIT, false]);
  });

  it('keeps only the streams in the states asked for, and the businesses that have one', () => {
    const whole = snapshot(1000);
    const failed = statusDocument(whole, query('state=failed'), 300);
    expect(failed.businesses.map((b) => b.name)).toEqual(Array.from({ length: 10 }, (_, i) => `biz-${String(i * 100 + 7).padStart(5, '0')}`));
    expect(failed.businesses.every((b) => b.streams.length === 1 && b.streams[0]?.state === 'failed')).toBe(true);
    expect(failed.matched).toEqual({ businesses: 10, streams: 10 });
    // The summary always covers the whole deployment.
    expect(failed.summary.streams).toBe(2000);
    const needs = statusDocument(whole, query('state=needs_person'), 300);
    expect(needs.businesses.map((b) => b.name)).toEqual([...failed.businesses.map((b) => b.name), 'biz-00003', 'zz-stopped'].sort());
    expect(statusDocument(whole, query('state=waiting_long'), 300).businesses.map((b) => [b.name, b.streams.map((s) => s.stream)])).toEqual([
      ['biz-00003', ['numbers']],
    ]);
  });

  it('filters by a part of the business name, any case', () => {
    const document = statusDocument(snapshot(1000), query('business=Z-0099'), 300);
    expect(document.businesses.map((b) => b.name)).toEqual(Array.from({ length: 10 }, (_, i) => `biz-0099${i}`));
  });

  it.each([
    [
      'state=sleeping',
      'state: unknown "sleeping"; expected a comma-separated list of idle, syncing, waiting_for_budget, auth_failed, gap_warning, drift, failed, waiting_long, needs_person',
    ],
    ['limit=0', 'limit: expected a whole number of businesses from 1 to 1000, got "0"'],
    ['limit=1001', 'limit: expected a whole number of businesses from 1 to 1000, got "1001"'],
    ['limit=ten', 'limit: expected a whole number of businesses from 1 to 1000, got "ten"'],
    ['cursor=***', 'cursor: not one this server hands out; use the nextCursor of the previous page, or leave it out to start'],
    ['page=2', 'unknown query parameter "page"; /status takes state, business, limit, cursor'],
  ])('refuses %s naming the parameter and what it takes', (text, error) => {
    expect(parseStatusQuery(new URLSearchParams(text))).toEqual({ error });
  });
});
