import { describe, expect, it } from 'vitest';
import { capRateLimitInfo, capWait, parseRateLimitHeaders, parseRetryAfter } from './server-wait.js';

const NOW = 1_763_782_900_000;

describe('parseRateLimitHeaders', () => {
  it('reads whole unix seconds', () => {
    expect(parseRateLimitHeaders({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': '1763782967' }, NOW)).toEqual({
      limit: 60,
      remaining: 12,
      resetAtMs: 1_763_782_967_000,
    });
  });

  it('keeps the fraction of sub-minute test windows', () => {
    expect(parseRateLimitHeaders({ 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1763782967.250' }, NOW)?.resetAtMs).toBe(
      1_763_782_967_250,
    );
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
    ['30', 30_000],
    [' 12 ', 12_000],
    ['0', 0],
    ['1.5', 1_500],
    [new Date(NOW + 5_000).toUTCString(), 5_000],
    [new Date(NOW - 5_000).toUTCString(), 0],
    ['soon', undefined],
    ['-1', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j → %s', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });
});

describe('the wait cap', () => {
  it('cuts a longer wait and says what was asked', () => {
    expect(capWait(999_999_999_000, 900_000)).toEqual({ waitMs: 900_000, askedMs: 999_999_999_000 });
    expect(capWait(30_000, 900_000)).toEqual({ waitMs: 30_000 });
  });

  it('brings a far reset to the cap and leaves a near one alone', () => {
    const far = { limit: 60, remaining: 0, resetAtMs: Date.UTC(3000, 0, 1) };
    expect(capRateLimitInfo(far, NOW, 900_000)).toEqual({ limit: 60, remaining: 0, resetAtMs: NOW + 900_000 });
    const near = { limit: 60, remaining: 0, resetAtMs: NOW + 30_000 };
    expect(capRateLimitInfo(near, NOW, 900_000)).toBe(near);
  });
});
