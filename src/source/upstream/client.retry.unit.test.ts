import { afterEach, describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import type { BucketConfig, BucketView, RateLimiter, RateLimitInfo, TakeResult } from '../ratelimit/index.js';
import { createUpstreamClient } from './client.js';
import type { FetchEvent, UpstreamRetry } from './client.js';
import { BudgetWaitError, isBudgetWaitError } from './errors.js';
import { API_KEY, BASE, EMAIL, expectNoSecrets, mockAgent, PASSWORD, rejectionOf } from '../../../test/support/upstream-mock.js';

const START = 1_763_782_900_000;
const BUCKET: BucketConfig = { limit: 60, windowMs: 60_000 };
const RESET_SECONDS = String((START + 30_000) / 1000);

/** A limiter that records calls, grants unless blocked, and can be told to refuse. */
class FakeLimiter implements RateLimiter {
  readonly calls: string[] = [];
  readonly observed: RateLimitInfo[] = [];
  blockedUntil = 0;
  refusals: number[] = [];
  constructor(private readonly clock: { now: number }) {}
  take(): Promise<TakeResult> {
    this.calls.push('take');
    const refusal = this.refusals.shift();
    if (refusal !== undefined) return Promise.resolve({ granted: false, waitMs: refusal });
    if (this.blockedUntil > this.clock.now) return Promise.resolve({ granted: false, waitMs: this.blockedUntil - this.clock.now });
    return Promise.resolve({ granted: true });
  }
  observe(_key: string, info: RateLimitInfo): Promise<void> {
    this.calls.push('observe');
    this.observed.push(info);
    return Promise.resolve();
  }
  block(_key: string, untilMs: number): Promise<void> {
    this.calls.push(`block:${untilMs - START}`);
    this.blockedUntil = untilMs;
    return Promise.resolve();
  }
  inspect(): Promise<BucketView> {
    return Promise.reject(new Error('not used'));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

let agent: MockAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

function setup(credentials: { apiKey?: string; session?: { email: string; password: string } } = { apiKey: API_KEY }) {
  const mock = mockAgent();
  agent = mock;
  const clock = { now: START };
  const limiter = new FakeLimiter(clock);
  const sleeps: number[] = [];
  const events: FetchEvent[] = [];
  const client = createUpstreamClient({ baseUrl: BASE, timeoutMs: 5_000, credentials, dispatcher: mock, now: () => clock.now });
  const run = (overrides: { retry?: UpstreamRetry; maxBudgetWaitMs?: number; signal?: AbortSignal } = {}) =>
    client.get(
      'v1',
      '/calls',
      { limit: 500 },
      {
        budget: { limiter, key: 'acme', bucket: BUCKET, maxWaitMs: overrides.maxBudgetWaitMs ?? Infinity },
        retry: overrides.retry ?? { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 },
        signal: overrides.signal,
        onEvent: (e) => events.push(e),
        sleep: (ms) => {
          sleeps.push(ms);
          clock.now += ms;
          return Promise.resolve();
        },
        now: () => clock.now,
        random: () => 0.5,
      },
    );
  const pool = mock.get(BASE);
  const calls = () => pool.intercept({ path: '/api/v1/calls?limit=500' });
  return { limiter, sleeps, events, run, calls, mock };
}

const rate = (remaining: number) => ({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': RESET_SECONDS });
const ok = { data: { calls: [], has_more: false } };

describe('the upstream client under a budget and the retry rules', () => {
  it('takes a token, fetches, and feeds the headers back', async () => {
    const { limiter, run, calls, events } = setup();
    calls().reply(200, ok, { headers: rate(41) });
    expect((await run()).payload).toEqual({ calls: [], has_more: false });
    expect(limiter.calls).toEqual(['take', 'observe']);
    expect(limiter.observed).toEqual([{ limit: 60, remaining: 41, resetAtMs: START + 30_000 }]);
    expect(events).toEqual([{ type: 'response', api: 'v1', path: '/calls', status: 200, ms: 0 }]);
  });

  it('blocks the bucket on 429, waits retry_after, and survives a 429 storm beyond maxAttempts', async () => {
    const { limiter, run, calls, sleeps, events, mock } = setup();
    calls()
      .reply(429, { error: 'rate_limit_exceeded', message: 'Too many requests', retry_after: 20 }, { headers: rate(0) })
      .times(6);
    calls().reply(200, ok, { headers: rate(59) });
    await run({ retry: { maxAttempts: 2, baseDelayMs: 100, maxDelayMs: 1_000 } });
    expect(sleeps).toEqual([20_000, 20_000, 20_000, 20_000, 20_000, 20_000]);
    expect(limiter.calls.slice(0, 5)).toEqual(['take', 'observe', 'block:20000', 'take', 'take']);
    expect(events.filter((e) => e.type === 'retry')).toHaveLength(6);
    expect(events.filter((e) => e.type === 'budget-wait')).toHaveLength(6);
    mock.assertNoPendingInterceptors();
  });

  it('gives up after maxRateLimited 429s', async () => {
    const { run, calls } = setup();
    calls().reply(429, { error: 'rate_limit_exceeded', message: 'slow down', retry_after: 1 }).times(4);
    const error = await rejectionOf(run({ retry: { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, maxRateLimited: 3 } }));
    expect(error).toMatchObject({ kind: 'rate_limited', code: 'RATE_LIMITED' });
  });

  // A body cut off before its Content-Length (UND_TRUNCATED_BODY) cannot be told apart here:
  // MockAgent hands over the whole body at once and never fails mid-body. The integration test
  // test/integration/upstream/upstream-http.test.ts cuts a real connection short for that case.
  it('retries 500, a reset connection and a 200 whose complete body is malformed JSON, with full-jitter backoff', async () => {
    const { run, calls, sleeps, events, mock } = setup();
    calls().reply(500, { error: { code: '500', message: 'Internal error' } });
    calls().replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    calls().reply(200, '{"data":{"calls":[{"id":"c1"},');
    calls().reply(200, ok);
    await run();
    expect(sleeps).toEqual([50, 100, 200]);
    expect(events.filter((e) => e.type === 'retry').map((e) => (e.type === 'retry' ? e.reason : ''))).toEqual([
      'SERVER_ERROR (HTTP 500)',
      'ECONNRESET',
      'BAD_JSON (HTTP 200)',
    ]);
    mock.assertNoPendingInterceptors();
  });

  it('waits the Retry-After of a 503 (seconds or date) instead of the shorter backoff', async () => {
    const { run, calls, sleeps, mock } = setup();
    calls().reply(503, 'unavailable', { headers: { 'retry-after': '5' } });
    calls().reply(503, 'unavailable', { headers: { 'retry-after': new Date(START + 5_000 + 7_000).toUTCString() } });
    calls().reply(200, ok);
    await run();
    expect(sleeps).toEqual([5_000, 7_000]);
    mock.assertNoPendingInterceptors();
  });

  it('throws the last transient error after maxAttempts attempts', async () => {
    const { run, calls, mock } = setup();
    calls().reply(503, 'unavailable').times(3);
    const error = await rejectionOf(run({ retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 10 } }));
    expect(error).toMatchObject({ kind: 'transient', status: 503 });
    mock.assertNoPendingInterceptors();
  });

  it.each([
    [401, 'auth'],
    [403, 'forbidden'],
    [400, 'invalid'],
    [404, 'invalid'],
  ])('throws %i (%s) at once without retrying or leaking the key', async (status, kind) => {
    const { run, calls, sleeps } = setup();
    calls().reply(status, { error: { code: String(status), message: 'no' } });
    const error = await rejectionOf(run());
    expect(error).toMatchObject({ kind, status });
    expect(sleeps).toEqual([]);
    expectNoSecrets(error);
  });

  it('judges a failure by the one classification the client made (never again): an aborted request is not retried', async () => {
    const { run, calls, sleeps, events } = setup();
    calls().replyWithError(Object.assign(new Error('request aborted'), { code: 'UND_ERR_ABORTED' }));
    const error = await rejectionOf(run());
    expect(error).toMatchObject({ kind: 'transient', code: 'UND_ERR_ABORTED' });
    expect(sleeps).toEqual([]);
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
  });

  it('throws BudgetWaitError without a request when the budget wait exceeds maxBudgetWaitMs', async () => {
    const { limiter, run } = setup();
    limiter.refusals = [5_000, 120_000];
    const error = await rejectionOf(run({ maxBudgetWaitMs: 60_000 }));
    expect(error).toBeInstanceOf(BudgetWaitError);
    expect(isBudgetWaitError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'BUDGET_WAIT', waitMs: 120_000 });
    expect(limiter.calls).toEqual(['take', 'take']);
  });

  it('turns a 429 with a long retry_after into BudgetWaitError for the queue', async () => {
    const { limiter, run, calls } = setup();
    calls().reply(429, { error: 'rate_limit_exceeded', message: 'wait', retry_after: 45 });
    const error = await rejectionOf(run({ maxBudgetWaitMs: 10_000 }));
    expect(error).toMatchObject({ code: 'BUDGET_WAIT', waitMs: 45_000 });
    expect(limiter.blockedUntil).toBe(START + 45_000);
  });

  it('does not use the limiter for session requests, but still waits out a 429', async () => {
    const { limiter, run, sleeps, mock } = setup({ session: { email: EMAIL, password: PASSWORD } });
    mock
      .get(BASE)
      .intercept({ path: '/api/v1/auth/login', method: 'POST' })
      .reply(200, {}, { headers: { 'set-cookie': 'sid=s1' } });
    mock.get(BASE).intercept({ path: '/api/v1/calls?limit=500' }).reply(429, { error: 'rate_limit_exceeded', message: 'wait', retry_after: 3 });
    mock
      .get(BASE)
      .intercept({ path: '/api/v1/calls?limit=500' })
      .reply(200, ok, { headers: rate(10) });
    await run();
    expect(limiter.calls).toEqual([]);
    expect(sleeps).toEqual([3_000]);
  });

  it('retries a session login that failed transiently, by the classification the login made, and counts it as an attempt', async () => {
    const { run, sleeps, events, mock } = setup({ session: { email: EMAIL, password: PASSWORD } });
    mock.get(BASE).intercept({ path: '/api/v1/auth/login', method: 'POST' }).reply(503, 'unavailable');
    mock
      .get(BASE)
      .intercept({ path: '/api/v1/auth/login', method: 'POST' })
      .reply(200, {}, { headers: { 'set-cookie': 'sid=s1' } });
    mock.get(BASE).intercept({ path: '/api/v1/calls?limit=500' }).reply(200, ok);
    await run();
    expect(sleeps).toEqual([50]);
    expect(events.filter((e) => e.type === 'retry').map((e) => (e.type === 'retry' ? e.reason : ''))).toEqual(['SERVER_ERROR (HTTP 503)']);
    mock.assertNoPendingInterceptors();
  });

  it('throws a refused login at once (auth), without sending the request', async () => {
    const { run, sleeps, mock } = setup({ session: { email: EMAIL, password: PASSWORD } });
    mock.get(BASE).intercept({ path: '/api/v1/auth/login', method: 'POST' }).reply(401, { error: 'bad credentials' });
    const error = await rejectionOf(run());
    expect(error).toMatchObject({ kind: 'auth', code: 'LOGIN_FAILED' });
    expect(sleeps).toEqual([]);
    expectNoSecrets(error);
  });

  it('stops at once when aborted', async () => {
    const { run, limiter } = setup();
    const controller = new AbortController();
    controller.abort();
    await expect(run({ signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(limiter.calls).toEqual([]);
  });
});
