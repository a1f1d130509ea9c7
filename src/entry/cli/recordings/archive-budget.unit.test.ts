import { describe, expect, it } from 'vitest';
import type { BusinessPlan } from '../../../engine/sync/business-plan.js';
import { createMemoryRateLimiter } from '../../../source/ratelimit/index.js';
import { archiveBudget } from './archive-budget.js';

// Mid-window: a take near a window boundary waits out the guard around it.
const NOW = Date.UTC(2026, 0, 1, 12, 0, 30);
const plan = (name: string): BusinessPlan => ({
  name,
  streams: [],
  credentials: { apiKey: `key-${name}` },
  bucket: { limit: 3, windowMs: 60_000 },
  normalizeContext: { recordingsBaseUrl: 'https://calls.example.com', v2TimeZone: 'UTC' },
});
const link = new URL('https://recordings.example/r/1.wav');

/** The budget over a fixed clock: a wait is recorded and refused, so what each take needed is visible. */
function budget(countAgainstApi: boolean, requestsPerMinute = 10) {
  const limiter = createMemoryRateLimiter({ now: () => NOW, maxWaitMs: 60_000 });
  const waits: number[] = [];
  const acquire = archiveBudget({
    limiter,
    plans: [plan('acme'), plan('beta')],
    budget: { requestsPerMinute, countAgainstApi },
    wait: (ms) => {
      waits.push(ms);
      return Promise.reject(new Error('would wait'));
    },
    maxWaitMs: 60_000,
  });
  return { limiter, acquire, waits };
}

describe('the archive budget', () => {
  it('takes a token of the business’s own bucket for each download by default, so pages and recordings share the API’s budget', async () => {
    const { limiter, acquire, waits } = budget(true);
    for (let request = 0; request < 3; request += 1) await acquire('acme', link);
    expect((await limiter.inspect('acme', { limit: 3, windowMs: 60_000 })).remaining).toBe(0);
    // The fourth waits for the business's window, though the recordings host has tokens left; another business does not.
    await expect(acquire('acme', link)).rejects.toThrow('would wait');
    expect(waits).toHaveLength(1);
    await acquire('beta', link);
  });

  it('leaves the business’s bucket alone with countAgainstApi: false, and keeps the recordings host’s own', async () => {
    const { limiter, acquire } = budget(false, 4);
    for (let request = 0; request < 4; request += 1) await acquire(request % 2 === 0 ? 'acme' : 'beta', link);
    expect((await limiter.inspect('acme', { limit: 3, windowMs: 60_000 })).remaining).toBe(3);
    // Four downloads a minute from this host, over every business.
    await expect(acquire('beta', link)).rejects.toThrow('would wait');
    await acquire('acme', new URL('https://cdn.example/r/1.wav'));
  });
});
