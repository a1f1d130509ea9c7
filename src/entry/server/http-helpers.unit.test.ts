import { describe, expect, it } from 'vitest';
import { createBearerCheck } from './bearer-auth.js';
import { runReadinessChecks } from './readiness.js';
import { formatAgo, formatDuration } from './format.js';

describe('bearer check', () => {
  const check = createBearerCheck('s3cret-token');
  it.each([
    ['Bearer s3cret-token', true],
    ['bearer s3cret-token', true],
    ['Bearer s3cret-token ', true],
    ['Bearer s3cret-toke', false],
    ['Bearer s3cret-token2', false],
    ['Basic s3cret-token', false],
    ['s3cret-token', false],
    ['Bearer ', false],
    [undefined, false],
  ])('%j → %s', (header, expected) => {
    expect(check(header)).toBe(expected);
  });
  it('refuses an empty token instead of letting every request in', () => {
    expect(() => createBearerCheck('')).toThrow(RangeError);
  });
});

describe('readiness checks', () => {
  it('runs every check and names each failure with its message, including sync throws and non-errors', async () => {
    const report = await runReadinessChecks(
      {
        redis: () => Promise.resolve(),
        sink: () => Promise.reject(new Error('database is locked')),
        odd: () => Promise.reject(new Error('x', { cause: 'y' })),
        sync: () => {
          throw new Error('thrown before any promise');
        },
        hang: () => new Promise<void>(() => undefined),
      },
      50,
    );
    expect(report).toEqual({
      ready: false,
      failing: ['sink', 'odd', 'sync', 'hang'],
      checks: {
        redis: { ok: true },
        sink: { ok: false, error: 'database is locked' },
        odd: { ok: false, error: 'x' },
        sync: { ok: false, error: 'thrown before any promise' },
        hang: { ok: false, error: 'no answer within 50 ms' },
      },
    });
  });
  it('is ready with no checks at all', async () => {
    expect(await runReadinessChecks({})).toEqual({ ready: true, failing: [], checks: {} });
  });
});

describe('time formatting', () => {
  it.each([
    [0, '0s'],
    [59.9, '59s'],
    [60, '1m'],
    [3599, '59m'],
    [3600, '1h 00m'],
    [3900, '1h 05m'],
    [90_000, '1d 1h'],
    [-5, '0s'],
  ])('formatDuration(%d) is %s', (seconds, expected) => {
    expect(formatDuration(seconds)).toBe(expected);
  });
  it('says never, just now, or how long ago', () => {
    const now = '2024-05-01T12:00:00Z';
    expect(formatAgo(null, now)).toBe('never');
    expect(formatAgo('2024-05-01T12:00:05Z', now)).toBe('just now');
    expect(formatAgo('2024-05-01T11:59:30Z', now)).toBe('30s ago');
  });
});
