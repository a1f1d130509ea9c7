import { describe, expect, it } from 'vitest';
import { HubSpotBudget, RollingWindow, WINDOW_MARGIN_MS } from './budget.js';

function clockAt(start: number) {
  let now = start;
  return { advance: (ms: number) => void (now += ms), now: () => now, sleep: (ms: number) => Promise.resolve(void (now += ms)) };
}

describe('HubSpotBudget', () => {
  it('keeps search and associations out of the 10-s window and search within its own', async () => {
    const clock = clockAt(0);
    const budget = new HubSpotBudget({ requestsPer10s: 2, searchPerSecond: 2 }, clock);
    for (let index = 0; index < 5; index += 1) await budget.for('associations').acquire();
    await budget.for('search').acquire();
    await budget.for('search').acquire();
    expect(clock.now()).toBe(0);
    await budget.for('general').acquire();
    await budget.for('general').acquire();
    expect(clock.now()).toBe(0);
    await budget.for('search').acquire();
    expect(clock.now()).toBe(1000 + WINDOW_MARGIN_MS.search);
    await budget.for('general').acquire();
    expect(clock.now()).toBe(10_000 + WINDOW_MARGIN_MS.tenSecondly);
  });

  it('counts associations once HubSpot answers one with the 10-s headers and no exemption', async () => {
    const clock = clockAt(0);
    const budget = new HubSpotBudget({ requestsPer10s: 2, searchPerSecond: 5 }, clock);
    budget.observe({ 'x-hubspot-ratelimit-remaining': '2', 'x-hubspot-rate-limit-exemptions': 'ten-secondly' }, 'associations');
    expect(budget.countsTenSecondly('associations')).toBe(false);
    budget.observe({ 'x-hubspot-ratelimit-remaining': '2' }, 'associations');
    expect(budget.countsTenSecondly('associations')).toBe(true);
    await budget.for('associations').acquire();
    await budget.for('associations').acquire();
    await budget.for('associations').acquire();
    expect(clock.now()).toBe(10_000 + WINDOW_MARGIN_MS.tenSecondly);
  });

  it('holds exempt requests back while a 429 block is in force', async () => {
    const clock = clockAt(0);
    const budget = new HubSpotBudget({ requestsPer10s: 100, searchPerSecond: 5 }, clock);
    budget.block('general', 3000);
    await budget.for('associations').acquire();
    expect(clock.now()).toBe(3000);
  });
});

/** A clock whose sleep does not advance it: these tests ask the window, they never wait. */
const stillClockAt = (start: number) => {
  let now = start;
  return { advance: (ms: number) => void (now += ms), now: () => now, sleep: () => Promise.resolve() };
};

describe('RollingWindow', () => {
  it('grants limit requests per rolling window, then says how long to wait', () => {
    const clock = stillClockAt(0);
    const window = new RollingWindow(3, 1000, clock);
    expect([window.tryTake(), window.tryTake()]).toEqual([0, 0]);
    clock.advance(400);
    expect(window.tryTake()).toBe(0);
    expect(window.tryTake()).toBe(600);
    clock.advance(600);
    expect(window.tryTake()).toBe(0);
  });

  it('counts requests the server saw but we did not make', () => {
    const window = new RollingWindow(10, 1000, stillClockAt(0));
    window.observeRemaining(1);
    expect(window.tryTake()).toBe(0);
    expect(window.tryTake()).toBeGreaterThan(0);
  });

  it('learns a lower limit but never rises above the ceiling', () => {
    const window = new RollingWindow(100, 10_000, stillClockAt(0));
    window.learn(150, 10_000, 100);
    expect(window.limit).toBe(100);
    window.learn(2, 5000, 100);
    expect([window.limit, window.windowMs, window.tryTake(), window.tryTake(), window.tryTake()]).toEqual([2, 5000, 0, 0, 5000]);
  });
});
