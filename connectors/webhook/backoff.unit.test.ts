import { describe, expect, it } from 'vitest';
import { fullJitterDelay } from './backoff.js';

const policy = { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 30_000 };

describe('fullJitterDelay', () => {
  it.each([
    [1, 500],
    [2, 1000],
    [3, 2000],
    [7, 30_000],
    [20, 30_000],
  ])('retry %i waits below a ceiling of %i ms', (retry, ceiling) => {
    expect(fullJitterDelay(retry, policy, () => 0)).toBe(0);
    expect(fullJitterDelay(retry, policy, () => 0.5)).toBe(ceiling / 2);
    expect(fullJitterDelay(retry, policy, () => 0.999_999)).toBe(ceiling - 1);
  });
});
