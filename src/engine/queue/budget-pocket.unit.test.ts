import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from '../../source/ratelimit/index.js';
import { budgetPocket } from './budget-pocket.js';

const config = { limit: 10, windowMs: 60_000 };

describe('budgetPocket', () => {
  it('takes a token per stream in one limiter call, spends them, then takes one at a time', async () => {
    const shared = createMemoryRateLimiter({ now: () => 1_000 });
    const calls: number[] = [];
    const counted = { ...shared, takeUpTo: (key: string, c: typeof config, max: number) => (calls.push(max), shared.takeUpTo!(key, c, max)) };
    const pocket = budgetPocket(counted, 'acme', 3, () => 1_000);
    for (let i = 0; i < 5; i += 1) expect((await pocket.take('acme', config)).granted).toBe(true);
    expect(calls).toEqual([3, 1, 1]);
    // Counted in the shared budget when taken, so another replica sees them gone.
    expect((await shared.inspect('acme', config)).remaining).toBe(5);
  });

  it('drops tokens left when their window ends instead of spending them in the next one', async () => {
    let clock = 59_000;
    const shared = createMemoryRateLimiter({ now: () => clock });
    const pocket = budgetPocket(shared, 'acme', 3, () => clock);
    expect((await pocket.take('acme', config)).granted).toBe(true);
    expect((await shared.inspect('acme', config)).remaining).toBe(7);
    clock = 61_000;
    expect((await pocket.take('acme', config)).granted).toBe(true);
    expect((await shared.inspect('acme', config)).remaining).toBe(9);
  });

  it('never grants more than the shared budget has, and says how long to wait', async () => {
    const shared = createMemoryRateLimiter({ now: () => 1_000 });
    for (let i = 0; i < 9; i += 1) await shared.take('acme', config);
    const pocket = budgetPocket(shared, 'acme', 3, () => 1_000);
    expect((await pocket.take('acme', config)).granted).toBe(true);
    const refused = await pocket.take('acme', config);
    expect(refused.granted).toBe(false);
    if (!refused.granted) expect(refused.waitMs).toBeGreaterThan(50_000);
  });
});
