import { describe, expect, it } from 'vitest';
import { bucketBudget, createMemoryRateLimiter } from './index.js';

const bucket = { limit: 2, windowMs: 60_000 };

function setUp() {
  const clock = { at: 1_700_000_040_000 };
  const now = (): number => clock.at;
  const limiter = createMemoryRateLimiter({ now, guardMs: 0 });
  const waits: number[] = [];
  const budget = bucketBudget({
    limiter,
    key: 'acme',
    bucket,
    maxWaitMs: 900_000,
    now,
    wait: (ms) => {
      waits.push(ms);
      clock.at += ms;
      return Promise.resolve();
    },
  });
  return { clock, limiter, waits, budget };
}

describe('bucketBudget', () => {
  it('takes one token per acquire, and waits as told until the window gives the next', async () => {
    const { limiter, waits, budget } = setUp();
    await budget.acquire();
    await budget.acquire();
    expect(waits).toEqual([]);
    await budget.acquire();
    expect(waits).toEqual([60_000]);
    expect((await limiter.inspect('acme', bucket)).usedThisWindow).toBe(1);
  });

  it('gives up when the wait throws (a run may not hold its slot that long)', async () => {
    const limiter = createMemoryRateLimiter({ now: () => 0, guardMs: 0 });
    const budget = bucketBudget({
      limiter,
      key: 'acme',
      bucket: { limit: 1, windowMs: 60_000 },
      maxWaitMs: 900_000,
      now: () => 0,
      wait: () => Promise.reject(new Error('too long')),
    });
    await budget.acquire();
    await expect(budget.acquire()).rejects.toThrow('too long');
  });

  it('learns the X-RateLimit-* headers of an answer, and nothing from no answer', async () => {
    const { clock, limiter, budget } = setUp();
    await budget.settle(undefined);
    expect((await limiter.inspect('acme', bucket)).remaining).toBe(2);
    const reset = String((clock.at + 90_000) / 1000);
    await budget.settle({ status: 200, headers: { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset } });
    expect(await limiter.inspect('acme', bucket)).toMatchObject({ remaining: 0, resetAtMs: clock.at + 90_000 });
  });

  it('cuts a reset further off than maxWaitMs', async () => {
    const { clock, limiter, budget } = setUp();
    const farReset = String((clock.at + 86_400_000) / 1000);
    await budget.settle({ status: 200, headers: { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': farReset } });
    expect((await limiter.inspect('acme', bucket)).resetAtMs).toBeLessThanOrEqual(clock.at + 900_000);
  });
});
