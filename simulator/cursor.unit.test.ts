import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.js';
import { describeWindow, formatReset } from './rate-limiter.js';
import { parseCallsPaging } from './paging.js';

describe('cursor', () => {
  it('round-trips and is bound to its business and secret', () => {
    const token = encodeCursor(11, 0, 1500, 1_763_000_000_000);
    expect(decodeCursor(11, 0, token)).toEqual({ position: 1500, issuedMs: 1_763_000_000_000 });
    expect(decodeCursor(11, 1, token)).toBeUndefined();
    expect(decodeCursor(12, 0, token)).toBeUndefined();
    expect(decodeCursor(11, 0, `${token}x`)).toBeUndefined();
    expect(decodeCursor(11, 0, 'a+b/c')).toBeUndefined();
  });
});

describe('rate-limit formatting', () => {
  it.each([
    [1_763_782_967_250, 1000, '1763782967.250'],
    [1_763_782_980_000, 60_000, '1763782980'],
    [1_763_782_980_000, 30_000, '1763782980.000'],
    [1_763_782_980_000, 120_500, '1763782980.000'],
  ])('reset %d for window %d is %s', (resetMs, windowMs, text) => {
    expect(formatReset(resetMs, windowMs)).toBe(text);
  });

  it('names windows in words', () => {
    expect(describeWindow(60_000)).toBe('minute');
    expect(describeWindow(1000)).toBe('second');
    expect(describeWindow(5000)).toBe('5 seconds');
    expect(describeWindow(250)).toBe('250 ms');
  });
});

describe('parseCallsPaging', () => {
  const parse = (q: string): ReturnType<typeof parseCallsPaging> => parseCallsPaging(new URLSearchParams(q));

  it.each([
    ['', { mode: 'cursor', limit: 50, cursor: '' }],
    ['limit=500', { mode: 'cursor', limit: 500, cursor: '' }],
    ['cursor=abc&limit=10', { mode: 'cursor', limit: 10, cursor: 'abc' }],
    ['offset=5', { mode: 'offset', limit: 50, offset: 5 }],
    ['page=2', { mode: 'page', page: 2, perPage: 50 }],
    ['per_page=20', { mode: 'page', page: 1, perPage: 20 }],
  ])('%s selects %o', (q, value) => {
    expect(parse(q)).toEqual({ ok: true, value });
  });

  it.each(['limit=501', 'limit=-1', 'limit=1.5', 'page=0', 'offset=1&page=1', 'cursor=&offset=0'])('%s is invalid', (q) => {
    expect(parse(q).ok).toBe(false);
  });
});
