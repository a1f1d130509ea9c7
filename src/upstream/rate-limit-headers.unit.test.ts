import { describe, expect, it } from 'vitest';
import { parseRateLimitHeaders, parseRetryAfter } from './rate-limit-headers.js';

const NOW = 1_763_782_900_000;

describe('parseRateLimitHeaders', () => {
  it('reads whole unix seconds', () => {
    expect(parseRateLimitHeaders({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': '1763782967' }, NOW))
      .toEqual({ limit: 60, remaining: 12, resetAtMs: 1_763_782_967_000 });
  });

  it('keeps the fraction of sub-minute test windows', () => {
    expect(parseRateLimitHeaders({ 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1763782967.250' }, NOW)?.resetAtMs)
      .toBe(1_763_782_967_250);
  });

  it('reads mixed-case names, repeated values and a Headers object', () => {
    expect(parseRateLimitHeaders({ 'X-RateLimit-Limit': ['60', '61'], 'X-RateLimit-Remaining': '1', 'X-RateLimit-Reset': '1763782967' }, NOW)?.limit).toBe(60);
    const headers = new Headers({ 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '3', 'X-RateLimit-Reset': '1763782967' });
    expect(parseRateLimitHeaders(headers, NOW)?.remaining).toBe(3);
  });

  it('takes a small reset as seconds from now', () => {
    expect(parseRateLimitHeaders({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '42' }, NOW)?.resetAtMs).toBe(NOW + 42_000);
  });

  it.each([
    [{}],
    [{ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '1' }],
    [{ 'x-ratelimit-limit': 'sixty', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '1763782967' }],
    [{ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '-1', 'x-ratelimit-reset': '1763782967' }],
  ])('returns undefined without all three numbers (%o)', (headers) => {
    expect(parseRateLimitHeaders(headers, NOW)).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  it.each([
    [{ 'retry-after': '30' }, 30_000],
    [{ 'retry-after': '1.5' }, 1_500],
    [{ 'retry-after': new Date(NOW + 5_000).toUTCString() }, 5_000],
    [{ 'retry-after': new Date(NOW - 5_000).toUTCString() }, 0],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('%o → %s', (headers, expected) => {
    expect(parseRetryAfter(headers, NOW)).toBe(expected);
  });
});
