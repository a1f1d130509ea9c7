import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiAllocation } from './allocation.js';
import type { SalesforceLimits } from './config.js';

const WINDOW_S = 100;
const limits = (overrides: Partial<SalesforceLimits> = {}): SalesforceLimits => ({
  share: 1,
  requestsPer24h: null,
  windowSeconds: WINDOW_S,
  maxWaitSeconds: 900,
  ...overrides,
});

function setUp(overrides: Partial<SalesforceLimits> = {}) {
  const clock = { at: 1_000_000, now: () => clock.at, sleep: () => Promise.reject(new Error('no wait in these tests')) };
  return { clock, allocation: new ApiAllocation(limits(overrides), clock, pino({ level: 'silent' })) };
}

/** An answer's head with the org's usage in `Sforce-Limit-Info`. */
const answered = (usage: string, status = 200) => ({ status, headers: { 'sforce-limit-info': usage } });

/** Sends one request now and settles it with the org's usage as the answer's header says. */
function sendOne(allocation: ApiAllocation, used: number, max: number): void {
  expect(allocation.reserve()).toBeUndefined();
  allocation.settle(answered(`api-usage=${used}/${max}`));
}

describe('ApiAllocation', () => {
  it('lets the first request go before the org is known, then keeps to the share of the allocation the header reports', () => {
    const { allocation } = setUp({ share: 0.5 });
    expect(allocation.budget).toBeUndefined();
    sendOne(allocation, 1, 10);
    expect(allocation.budget).toBe(5);
    for (let used = 2; used <= 5; used++) sendOne(allocation, used, 10);
    expect(allocation.reserve()?.reason).toMatch(/sink\.limits\.share/);
  });

  it('counts requests in flight, so concurrent writers stop one request short of the org limit', () => {
    const { allocation } = setUp();
    sendOne(allocation, 8, 10);
    expect(allocation.reserve()).toBeUndefined();
    expect(allocation.reserve()).toBeUndefined();
    expect(allocation.reserve()).toBeDefined();
    allocation.settle(answered('api-usage=9/10'));
    allocation.settle(answered('api-usage=10/10'));
    expect(allocation.reserve()?.reason).toMatch(/api-usage=10\/10/);
  });

  it('waits for the org until one window after the first answer seen in it, then sends one request to read the header again', () => {
    const { clock, allocation } = setUp();
    const first = clock.at;
    sendOne(allocation, 9, 10);
    clock.at += 5_000;
    sendOne(allocation, 10, 10);
    expect(allocation.reserve()?.untilMs).toBe(first + WINDOW_S * 1000);
    clock.at = first + WINDOW_S * 1000;
    expect(allocation.reserve()).toBeUndefined();
    expect(allocation.reserve()).toBeDefined();
    allocation.settle(answered('api-usage=3/10'));
    expect(allocation.reserve()).toBeUndefined();
  });

  it('keeps to requestsPer24h when it is lower than the share, and frees a slot when its own oldest request ages out', () => {
    const { clock, allocation } = setUp({ requestsPer24h: 2 });
    const first = clock.at;
    sendOne(allocation, 1, 1000);
    clock.at += 10;
    sendOne(allocation, 2, 1000);
    const wait = allocation.reserve();
    expect(wait?.untilMs).toBe(first + WINDOW_S * 1000);
    expect(wait?.reason).toMatch(/2 requests per 100 s/);
    clock.at = first + WINDOW_S * 1000;
    expect(allocation.reserve()).toBeUndefined();
  });

  it('treats REQUEST_LIMIT_EXCEEDED as a full org, whatever the last header said', () => {
    const { allocation } = setUp();
    sendOne(allocation, 3, 10);
    expect(allocation.reserve()).toBeUndefined();
    allocation.settle(answered('api-usage=10/10', 403));
    allocation.exhausted();
    expect(allocation.reserve()).toBeDefined();
    // Refused for the limit, so not counted; nor is a 401 (the session was refused).
    expect(allocation.used).toBe(1);
    expect(allocation.reserve()).toBeDefined();
  });

  it('does not count a 401', () => {
    const { allocation } = setUp();
    expect(allocation.reserve()).toBeUndefined();
    allocation.settle(answered('api-usage=1/10', 401));
    expect(allocation.used).toBe(0);
  });

  it('acquires at once when there is room, waits for it within maxWaitSeconds, and refuses a longer wait naming when writing goes on', async () => {
    const slept: number[] = [];
    const clock = { at: 1_000_000, now: () => clock.at, sleep: (ms: number) => (slept.push(ms), (clock.at += ms), Promise.resolve()) };
    const allocation = new ApiAllocation(limits({ requestsPer24h: 1, maxWaitSeconds: WINDOW_S }), clock, pino({ level: 'silent' }));
    await allocation.acquire();
    allocation.settle(answered('api-usage=1/1000'));
    await allocation.acquire();
    expect(slept).toEqual([WINDOW_S * 1000]);
    allocation.settle(answered('api-usage=2/1000'));
    const short = new ApiAllocation(limits({ requestsPer24h: 1, maxWaitSeconds: 1 }), clock, pino({ level: 'silent' }));
    await short.acquire();
    short.settle(answered('api-usage=3/1000'));
    await expect(short.acquire()).rejects.toMatchObject({ problem: 'allocation', resumeAt: clock.at + WINDOW_S * 1000 });
  });

  it('does not count a request that never reached Salesforce', () => {
    const { allocation } = setUp({ requestsPer24h: 1 });
    expect(allocation.reserve()).toBeUndefined();
    allocation.settle(undefined);
    expect(allocation.used).toBe(0);
    expect(allocation.reserve()).toBeUndefined();
  });
});
