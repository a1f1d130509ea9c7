import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from './backoff.js';

const policy = { baseDelayMs: 100, maxDelayMs: 1_000 };

describe('backoffDelayMs (full jitter)', () => {
  it.each([
    [1, 100],
    [2, 200],
    [3, 400],
    [4, 800],
    [5, 1_000],
    [60, 1_000],
    [5_000, 1_000],
  ])('attempt %i has ceiling %i', (attempt, ceiling) => {
    expect(backoffDelayMs(attempt, policy, () => 0.999_999)).toBe(Math.floor(0.999_999 * ceiling));
    expect(backoffDelayMs(attempt, policy, () => 0)).toBe(0);
    expect(backoffDelayMs(attempt, policy, () => 0.5)).toBe(ceiling / 2);
  });

  it('treats attempt 0 or less like the first retry', () => {
    expect(backoffDelayMs(0, policy, () => 0.5)).toBe(50);
  });
});
