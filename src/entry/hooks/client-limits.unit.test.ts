import { describe, expect, it, vi } from 'vitest';
import { ByteBudget, ClientRateLimit, CountedLine, LogThrottle } from './client-limits.js';
import { ClientShares } from '../server/connection-limits.js';

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

describe('ClientShares (deliveries in progress)', () => {
  it('caps deliveries in all and per client, and gives a released slot back', () => {
    const slots = new ClientShares(3, 2);
    expect([slots.tryAdd('a', 1), slots.tryAdd('a', 1), slots.tryAdd('a', 1)]).toEqual([true, true, false]);
    expect(slots.tryAdd('b', 1)).toBe(true);
    expect(slots.tryAdd('c', 1)).toBe(false);
    slots.remove('a', 1);
    expect(slots.tryAdd('c', 1)).toBe(true);
    expect(slots.used).toBe(3);
  });
});

describe('ByteBudget', () => {
  it('keeps the bytes of every hold within the capacity and a quarter of it per client, and frees them on release', () => {
    const budget = new ByteBudget(1_000, 100);
    const [a1, a2, a3] = [budget.hold('a'), budget.hold('a'), budget.hold('a')];
    expect([a1.grow(100), a2.grow(100), a3.grow(100)]).toEqual([true, true, false]);
    // A hold grows by what it adds: 200 held by `a`, 250 is its share.
    expect(a2.grow(150)).toBe(true);
    expect(a2.grow(151)).toBe(false);
    expect([budget.hold('b').grow(250), budget.hold('c').grow(250), budget.hold('d').grow(250)]).toEqual([true, true, true]);
    expect(budget.used).toBe(1_000);
    expect(budget.hold('e').grow(1)).toBe(false);
    a1.release();
    a1.release();
    expect(budget.used).toBe(900);
    expect(budget.hold('e').grow(100)).toBe(true);
  });

  it('always has room for one body of the largest size', () => {
    expect(new ByteBudget(10, 100).hold('a').grow(100)).toBe(true);
  });
});

describe('CountedLine', () => {
  it('says the first event at once, then one line with the count per interval while more come', () => {
    vi.useFakeTimers();
    try {
      const said: number[] = [];
      const line = new CountedLine((count) => said.push(count), 60_000);
      for (let i = 0; i < 500; i++) line.add();
      expect(said).toEqual([1]);
      vi.advanceTimersByTime(60_000);
      expect(said).toEqual([1, 499]);
      vi.advanceTimersByTime(60_000);
      expect(said).toEqual([1, 499]);
      line.add();
      expect(said).toEqual([1, 499, 1]);
    } finally {
      vi.useRealTimers();
    }
  });
});
