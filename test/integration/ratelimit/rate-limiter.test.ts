import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRateLimiter, createRedisRateLimiter } from '../../../src/source/ratelimit/index.js';
import type { BucketConfig, RateLimiter } from '../../../src/source/ratelimit/index.js';
import { DEFAULT_GUARD_MS } from '../../../src/source/ratelimit/fixed-window.js';
import { uniqueName } from '../services.js';
import { redisConnections } from '../support/redis-connections.js';

/** Two limiters of one deployment: the same object in memory, two connections (replicas) with Redis. */
interface Pair {
  readonly first: RateLimiter;
  readonly second: RateLimiter;
}

// An hour-long window keeps a test that is not about rollover far from any boundary.
const HOUR: BucketConfig = { limit: 50, windowMs: 3_600_000 };

/**
 * The limiters' clock, stepped by the tests (Redis's scripts take it in place of `TIME`): a window,
 * a block and a rollover are as long as the test says, however slow the machine. It starts ten
 * minutes into an hour, far from an hour's boundary.
 */
function steppedClock(): { now: () => number; advance: (ms: number) => void; to: (ms: number) => void } {
  let ms = Date.UTC(2026, 0, 1, 0, 10);
  return { now: () => ms, advance: (by) => void (ms += by), to: (at) => void (ms = at) };
}

async function countGranted(limiter: RateLimiter, key: string, config: BucketConfig, n: number): Promise<number> {
  const results = await Promise.all(Array.from({ length: n }, () => limiter.take(key, config)));
  return results.filter((r) => r.granted).length;
}

function rateLimiterContract(name: string, createPair: (now: () => number) => Pair): void {
  describe(`${name} rate limiter contract`, () => {
    const clock = steppedClock();
    let pair: Pair;
    let key: string;
    beforeAll(() => {
      pair = createPair(clock.now);
    });
    /** Moves the clock just past the guard after the bucket's current window ends. */
    const atWindowStart = async (limiter: RateLimiter, config: BucketConfig): Promise<void> => {
      clock.to((await limiter.inspect(key, config)).resetAtMs + DEFAULT_GUARD_MS + 5);
    };
    afterAll(async () => {
      await pair.first.close();
      await pair.second.close();
    });

    it('grants exactly the limit to 200 concurrent takes and then reports a wait', async () => {
      key = uniqueName('concurrent');
      expect(await countGranted(pair.first, key, HOUR, 200)).toBe(50);
      const next = await pair.first.take(key, HOUR);
      expect(next.granted).toBe(false);
      const view = await pair.first.inspect(key, HOUR);
      expect(view).toMatchObject({ limit: 50, remaining: 0, usedThisWindow: 50, blockedUntilMs: null });
      expect(view.resetAtMs % HOUR.windowMs).toBe(0);
      if (!next.granted) expect(next.waitMs).toBeGreaterThan(view.resetAtMs - clock.now() - 1000);
    });

    it('shares one budget exactly between two limiters of one deployment', async () => {
      key = uniqueName('shared');
      const [a, b] = await Promise.all([countGranted(pair.first, key, HOUR, 100), countGranted(pair.second, key, HOUR, 100)]);
      expect(a + b).toBe(50);
      expect((await pair.second.inspect(key, HOUR)).remaining).toBe(0);
    });

    it('takes up to a count at once: what the window has left, then nothing, with the time left to spend them', async () => {
      key = uniqueName('take_many');
      const config: BucketConfig = { limit: 5, windowMs: HOUR.windowMs };
      const first = await pair.first.takeUpTo?.(key, config, 3);
      expect(first).toMatchObject({ tokens: 3, waitMs: 0 });
      const view = await pair.second.inspect(key, config);
      expect(first?.spendWithinMs).toBeGreaterThan(view.resetAtMs - clock.now() - 1_000);
      expect(first?.spendWithinMs).toBeLessThanOrEqual(view.resetAtMs - clock.now() + 1_000);
      expect((await pair.second.takeUpTo?.(key, config, 3))?.tokens).toBe(2);
      const none = await pair.first.takeUpTo?.(key, config, 3);
      expect(none?.tokens).toBe(0);
      expect(none?.waitMs).toBeGreaterThan(view.resetAtMs - clock.now() - 1_000);
      expect((await pair.first.take(key, config)).granted).toBe(false);
    });

    it('never raises remaining within a window, adopts a later reset and ignores an earlier one', async () => {
      key = uniqueName('observe');
      const config: BucketConfig = { limit: 10, windowMs: HOUR.windowMs };
      await pair.first.take(key, config);
      const { resetAtMs } = await pair.first.inspect(key, config);
      expect((await pair.first.inspect(key, config)).remaining).toBe(9);

      await pair.first.observe(key, { limit: 10, remaining: 3, resetAtMs }, config);
      expect((await pair.first.inspect(key, config)).remaining).toBe(3);
      await pair.first.observe(key, { limit: 10, remaining: 8, resetAtMs }, config);
      expect((await pair.first.inspect(key, config)).remaining).toBe(3);
      await pair.first.observe(key, { limit: 10, remaining: 9, resetAtMs: resetAtMs - config.windowMs }, config);
      expect((await pair.first.inspect(key, config)).remaining).toBe(3);

      const later = resetAtMs + config.windowMs;
      await pair.first.observe(key, { limit: 10, remaining: 7, resetAtMs: later }, config);
      expect(await pair.second.inspect(key, config)).toMatchObject({ remaining: 7, resetAtMs: later, usedThisWindow: 3 });
    });

    it('takes nothing while the server says the window is spent', async () => {
      key = uniqueName('spent');
      const { resetAtMs } = await pair.first.inspect(key, HOUR);
      await pair.first.observe(key, { limit: 50, remaining: 0, resetAtMs }, HOUR);
      const result = await pair.second.take(key, HOUR);
      expect(result.granted).toBe(false);
      if (!result.granted) {
        expect(result.waitMs).toBeGreaterThan(resetAtMs - clock.now() - 1000);
        expect(result.waitMs).toBeLessThanOrEqual(resetAtMs - clock.now() + 1000);
      }
    });

    it('blocks every take until the 429 wait is over, and then spends the rest of the window', async () => {
      key = uniqueName('block');
      expect((await pair.first.take(key, HOUR)).granted).toBe(true);
      const until = clock.now() + 150;
      await pair.first.block(key, until);
      clock.advance(149);
      const during = await pair.second.take(key, HOUR);
      expect(during).toEqual({ granted: false, waitMs: 1 });
      expect((await pair.second.inspect(key, HOUR)).blockedUntilMs).toBe(until);

      clock.advance(1);
      const after = await pair.first.take(key, HOUR);
      expect(after.granted).toBe(false);
      if (!after.granted) expect(after.waitMs).toBeGreaterThan(1000);
      expect((await pair.first.inspect(key, HOUR)).blockedUntilMs).toBeNull();
    });

    it('lets a blocked key that never saw a window start fresh after the block', async () => {
      key = uniqueName('block_fresh');
      const config: BucketConfig = { limit: 5, windowMs: 400 };
      await pair.first.block(key, clock.now() + 80);
      expect((await pair.first.take(key, config)).granted).toBe(false);
      clock.advance(100);
      await atWindowStart(pair.first, config);
      expect((await pair.second.take(key, config)).granted).toBe(true);
    });

    it('refills at the window reset with the limit learned from headers', async () => {
      key = uniqueName('rollover');
      const config: BucketConfig = { limit: 3, windowMs: 600 };
      await atWindowStart(pair.first, config);
      expect(await countGranted(pair.first, key, config, 5)).toBe(3);
      const before = await pair.first.inspect(key, config);
      await pair.first.observe(key, { limit: 2, remaining: 0, resetAtMs: before.resetAtMs }, config);

      await atWindowStart(pair.first, config);
      expect(await countGranted(pair.second, key, config, 5)).toBe(2);
      const after = await pair.first.inspect(key, config);
      expect(after.limit).toBe(2);
      expect(after.resetAtMs - before.resetAtMs).toBeGreaterThanOrEqual(config.windowMs);
      expect((after.resetAtMs - before.resetAtMs) % config.windowMs).toBe(0);
    });
  });
}

rateLimiterContract('memory', (now) => {
  const limiter = createMemoryRateLimiter({ now });
  return { first: limiter, second: limiter };
});

const connect = redisConnections();
const prefix = uniqueName('ratelimit');

rateLimiterContract('redis', (now) => {
  const [a, b] = [connect(), connect()];
  return { first: createRedisRateLimiter({ redis: a, prefix, now }), second: createRedisRateLimiter({ redis: b, prefix, now }) };
});
