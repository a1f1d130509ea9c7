import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from './memory-rate-limiter.js';
import type { BucketConfig } from './types.js';

function fakeClock(start: number): { now: () => number; set: (t: number) => void } {
  let t = start;
  return { now: () => t, set: (next: number) => (t = next) };
}

describe('memory rate limiter on a fake clock', () => {
  const config: BucketConfig = { limit: 3, windowMs: 60_000 };

  it('assumes windows aligned to the epoch before any header and refills fully at the reset', async () => {
    const clock = fakeClock(120_000 + 10_000);
    const limiter = createMemoryRateLimiter(clock.now);
    for (let i = 0; i < 3; i += 1) expect(await limiter.take('k', config)).toEqual({ granted: true });
    expect(await limiter.take('k', config)).toEqual({ granted: false, waitMs: 180_000 + 100 - 130_000 });
    clock.set(180_000 + 100);
    expect((await limiter.inspect('k', config)).remaining).toBe(3);
    expect((await limiter.inspect('k', config)).resetAtMs).toBe(240_000);
  });

  it('refuses tokens within the guard on both sides of a boundary', async () => {
    const clock = fakeClock(180_000 - 100);
    const limiter = createMemoryRateLimiter(clock.now);
    expect(await limiter.take('k', config)).toEqual({ granted: false, waitMs: 200 });
    clock.set(180_000 + 99);
    expect(await limiter.take('k', config)).toEqual({ granted: false, waitMs: 1 });
    clock.set(180_000 + 100);
    expect(await limiter.take('k', config)).toEqual({ granted: true });
    clock.set(240_000 - 101);
    expect(await limiter.take('k', config)).toEqual({ granted: true });
  });

  it('keeps the guard to a tenth of short windows', async () => {
    const clock = fakeClock(1_000 - 11);
    const limiter = createMemoryRateLimiter(clock.now);
    expect(await limiter.take('k', { limit: 1, windowMs: 100 })).toEqual({ granted: true });
  });

  it('keeps the phase of a learned reset that is not aligned to the epoch', async () => {
    const clock = fakeClock(100_000);
    const limiter = createMemoryRateLimiter(clock.now);
    await limiter.observe('k', { limit: 3, remaining: 0, resetAtMs: 107_500 }, config);
    expect(await limiter.take('k', config)).toEqual({ granted: false, waitMs: 7_600 });
    clock.set(107_500 + 60_000 + 100);
    expect(await limiter.inspect('k', config)).toMatchObject({ remaining: 3, resetAtMs: 227_500 });
  });

  it('blocks after a 429 and treats the rest of the window as spent', async () => {
    const clock = fakeClock(10_000);
    const limiter = createMemoryRateLimiter(clock.now);
    await limiter.take('k', config);
    await limiter.block('k', 12_000);
    expect(await limiter.take('k', config)).toEqual({ granted: false, waitMs: 2_000 });
    clock.set(12_000);
    expect(await limiter.take('k', config)).toEqual({ granted: false, waitMs: 48_100 });
    expect(await limiter.inspect('k', config)).toMatchObject({ blockedUntilMs: null, usedThisWindow: 3 });
  });

  it('forgets everything on close', async () => {
    const clock = fakeClock(10_000);
    const limiter = createMemoryRateLimiter(clock.now);
    await limiter.block('k', 50_000);
    await limiter.close();
    expect(await limiter.take('k', config)).toEqual({ granted: true });
  });
});

/**
 * A discrete-event model of the upstream: fixed windows aligned to the epoch on the SERVER's clock,
 * which may be ahead of or behind ours, and a one-way latency. Workers send as fast as the limiter
 * lets them and feed every response's headers back.
 */
async function simulate(opts: { limit: number; windowMs: number; skewMs: number; latencyMs: number; workers: number; windows: number }) {
  const clock = fakeClock(opts.windowMs * 1000 + (7_919 % opts.windowMs));
  const limiter = createMemoryRateLimiter(clock.now);
  const config: BucketConfig = { limit: opts.limit, windowMs: opts.windowMs };
  const served = new Map<number, number>();
  let rejected = 0;
  type Event = { at: number; worker: number; kind: 'try' | 'response'; info?: { remaining: number; resetAtMs: number } };
  const events: Event[] = Array.from({ length: opts.workers }, (_, worker) => ({ at: clock.now(), worker, kind: 'try' as const }));
  const end = clock.now() + opts.windows * opts.windowMs;
  while (events.length > 0) {
    events.sort((a, b) => a.at - b.at);
    const event = events.shift()!;
    if (event.at > end) break;
    clock.set(event.at);
    if (event.kind === 'response') {
      if (event.info) await limiter.observe('k', { limit: opts.limit, ...event.info }, config);
      events.push({ at: event.at, worker: event.worker, kind: 'try' });
      continue;
    }
    const result = await limiter.take('k', config);
    if (!result.granted) {
      events.push({ at: event.at + result.waitMs, worker: event.worker, kind: 'try' });
      continue;
    }
    const serverTime = event.at + opts.latencyMs + opts.skewMs;
    const window = Math.floor(serverTime / opts.windowMs);
    const used = (served.get(window) ?? 0) + 1;
    if (used > opts.limit) rejected += 1;
    else served.set(window, used);
    const info = { remaining: Math.max(0, opts.limit - used), resetAtMs: (window + 1) * opts.windowMs };
    events.push({ at: event.at + 2 * opts.latencyMs, worker: event.worker, kind: 'response', info });
  }
  const windows = [...served.keys()].sort((a, b) => a - b).slice(1, -1); // whole windows only
  const usedInWhole = windows.reduce((sum, w) => sum + (served.get(w) ?? 0), 0);
  return { rejected, utilization: usedInWhole / (windows.length * opts.limit), windows: windows.length };
}

describe('fixed-window limiter against a fixed-window server', () => {
  it.each([
    { limit: 60, windowMs: 60_000, skewMs: 0, latencyMs: 3, workers: 4, windows: 30 },
    { limit: 60, windowMs: 60_000, skewMs: 12, latencyMs: 8, workers: 8, windows: 30 },
    { limit: 60, windowMs: 60_000, skewMs: -12, latencyMs: 8, workers: 8, windows: 30 },
    { limit: 20, windowMs: 1_000, skewMs: 5, latencyMs: 2, workers: 3, windows: 100 },
    { limit: 500, windowMs: 60_000, skewMs: -5, latencyMs: 1, workers: 16, windows: 10 },
  ])('uses ≥ 97% of the budget with no 429 (%o)', async (opts) => {
    const { rejected, utilization, windows } = await simulate(opts);
    expect(windows).toBeGreaterThanOrEqual(opts.windows - 2);
    expect(rejected).toBe(0);
    expect(utilization).toBeGreaterThanOrEqual(0.97);
  });
});

describe('the wait cap', () => {
  const config: BucketConfig = { limit: 3, windowMs: 60_000 };
  const cap = 15 * 60_000;

  it('keeps no block beyond maxWaitMs, and the business recovers by itself when it passes', async () => {
    const clock = fakeClock(1_000_000_000_000);
    const limiter = createMemoryRateLimiter({ now: clock.now, maxWaitMs: cap });
    await limiter.block('acme', Date.UTC(3000, 0, 1));
    expect((await limiter.inspect('acme', config)).blockedUntilMs).toBe(clock.now() + cap);
    const refused = await limiter.take('acme', config);
    expect(refused).toEqual({ granted: false, waitMs: cap });
    clock.set(clock.now() + cap + 60_000);
    expect(await limiter.take('acme', config)).toEqual({ granted: true });
  });

  it('brings a spent window that resets in the year 3000 back to the cap', async () => {
    const clock = fakeClock(1_000_000_000_000);
    const limiter = createMemoryRateLimiter({ now: clock.now, maxWaitMs: cap });
    await limiter.observe('acme', { limit: 3, remaining: 0, resetAtMs: Date.UTC(3000, 0, 1) }, config);
    const refused = await limiter.take('acme', config);
    expect(refused.granted).toBe(false);
    if (!refused.granted) expect(refused.waitMs).toBeLessThanOrEqual(cap + 100);
  });
});
