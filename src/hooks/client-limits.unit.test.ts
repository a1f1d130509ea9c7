import { describe, expect, it } from 'vitest';
import { ClientRateLimit, LogThrottle } from './client-limits.js';

describe('ClientRateLimit', () => {
  it('lets `requests` through per window and per client, then refuses until the window ends', () => {
    const limit = new ClientRateLimit(3, 1_000);
    expect([1, 2, 3, 4].map(() => limit.take('10.0.0.1', 0))).toEqual([true, true, true, false]);
    expect(limit.take('10.0.0.2', 500)).toBe(true);
    expect(limit.take('10.0.0.1', 999)).toBe(false);
    expect(limit.take('10.0.0.1', 1_000)).toBe(true);
  });
  it('keeps its memory bounded under a flood of addresses, and still limits a live client', () => {
    const limit = new ClientRateLimit(1, 60_000);
    expect(limit.take('client', 0)).toBe(true);
    expect(limit.take('client', 1)).toBe(false);
    for (let i = 0; i < 20_000; i++) limit.take(`flood-${i}`, 2);
    // Its window was dropped with the oldest; the limit starts again rather than growing memory.
    expect(limit.take('client', 3)).toBe(true);
    expect(limit.take('client', 4)).toBe(false);
  });
});

describe('LogThrottle', () => {
  it('says yes once per minute per source', () => {
    const throttle = new LogThrottle();
    expect(throttle.allow('a', 0)).toBe(true);
    expect(throttle.allow('a', 59_999)).toBe(false);
    expect(throttle.allow('b', 1)).toBe(true);
    expect(throttle.allow('a', 60_000)).toBe(true);
  });
});
