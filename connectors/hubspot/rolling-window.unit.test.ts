import { describe, expect, it } from 'vitest';
import { RollingWindow } from './rolling-window.js';

const clockAt = (start: number) => {
  let now = start;
  return { advance: (ms: number) => void (now += ms), now: () => now, sleep: () => Promise.resolve() };
};

describe('RollingWindow', () => {
  it('grants limit requests per rolling window, then says how long to wait', () => {
    const clock = clockAt(0);
    const window = new RollingWindow(3, 1000, clock);
    expect([window.tryTake(), window.tryTake()]).toEqual([0, 0]);
    clock.advance(400);
    expect(window.tryTake()).toBe(0);
    expect(window.tryTake()).toBe(600);
    clock.advance(600);
    expect(window.tryTake()).toBe(0);
  });

  it('counts requests the server saw but we did not make', () => {
    const window = new RollingWindow(10, 1000, clockAt(0));
    window.observeRemaining(1);
    expect(window.tryTake()).toBe(0);
    expect(window.tryTake()).toBeGreaterThan(0);
  });

  it('learns a lower limit but never rises above the ceiling', () => {
    const window = new RollingWindow(100, 10_000, clockAt(0));
    window.learn(150, 10_000, 100);
    expect(window.limit).toBe(100);
    window.learn(2, 5000, 100);
    expect([window.limit, window.windowMs, window.tryTake(), window.tryTake(), window.tryTake()]).toEqual([2, 5000, 0, 0, 5000]);
  });
});
