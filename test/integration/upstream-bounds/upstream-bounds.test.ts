import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearRateLimitBlock, createMemoryRateLimiter, createRedisRateLimiter } from '../../../src/source/ratelimit/index.js';
import type { RateLimiter } from '../../../src/source/ratelimit/index.js';
import { createUpstreamClient, isBudgetWaitError } from '../../../src/source/upstream/index.js';
import type { FetchEvent, UpstreamClient } from '../../../src/source/upstream/index.js';
import { redisUrl, uniqueName } from '../services.js';
import { startHostileServer } from './hostile-server.js';
import type { HostileServer } from './hostile-server.js';

const API_KEY = 'ck_live_bounds_SECRET';
const MAX_WAIT_MS = 2_000;
const MAX_BODY_BYTES = 8 * 1024 * 1024;
// Only the trickle test is about the deadline. Every other request gets one no loaded 2-core
// machine reaches (reading 8 MiB over loopback takes milliseconds), so only the bound under test
// can end it, while the test timeout still bounds the test.
const TRICKLE_TIMEOUT_MS = 500;
const GENEROUS_TIMEOUT_MS = 30_000;
// A short window, so the wait after a 429 (the rest of the server's window) is short too.
const bucket = { limit: 60, windowMs: 100 };

let server: HostileServer;
let client: UpstreamClient;
let deadlineClient: UpstreamClient;
const redis = new Redis(redisUrl);
beforeAll(async () => {
  server = await startHostileServer();
  const options = { baseUrl: server.baseUrl, maxWaitMs: MAX_WAIT_MS, maxBodyBytes: MAX_BODY_BYTES, credentials: { apiKey: API_KEY } };
  client = createUpstreamClient({ ...options, timeoutMs: GENEROUS_TIMEOUT_MS });
  deadlineClient = createUpstreamClient({ ...options, timeoutMs: TRICKLE_TIMEOUT_MS });
});
afterAll(async () => {
  await client.close();
  await deadlineClient.close();
  await server.close();
  await redis.quit();
});

function fetch(path: string, limiter: RateLimiter, maxBudgetWaitMs = Number.POSITIVE_INFINITY) {
  const events: FetchEvent[] = [];
  const done = client.get('v1', path, undefined, {
    budget: { limiter, key: uniqueName('acme'), bucket, maxWaitMs: maxBudgetWaitMs },
    retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10 },
    onEvent: (event) => events.push(event),
  });
  return { done, events };
}

describe('bounds on a hostile upstream over real HTTP', () => {
  it('refuses a 1 GiB body at maxBodyBytes, naming the limit, without holding it', async () => {
    const before = process.memoryUsage().rss;
    const error = await client.get('v1', '/huge').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'transient', code: 'BODY_TOO_LARGE', status: 200 });
    expect((error as Error).message).toContain(`upstream.maxBodyBytes (${MAX_BODY_BYTES} bytes)`);
    // Socket buffers let the server get a little ahead of the cut, nowhere near the whole GiB.
    expect(server.hugeBytesWritten()).toBeLessThan(256 * 1024 * 1024);
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
  });

  it('ends a body trickling a byte every 100 ms at the deadline', async () => {
    // The trickle never ends: only the deadline can end the request, and the error says it did. How
    // long that took on a loaded machine says nothing more; a deadline that never fired would leave
    // the test to its timeout.
    const error = await deadlineClient.get('v1', '/trickle').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'transient', code: 'UPSTREAM_TIMEOUT' });
    expect((error as Error).message).toContain(`within ${TRICKLE_TIMEOUT_MS} ms (upstream.timeoutMs)`);
  });

  it('waits a Retry-After of 999999999 s only maxWaitMs, with one warning', async () => {
    const { done, events } = fetch('/retry-after', createMemoryRateLimiter({ maxWaitMs: MAX_WAIT_MS }));
    // It ends at all (the wait asked for is 31 years), after the one capped wait it reported.
    expect((await done).payload).toMatchObject({ calls: [{ id: 'c1' }] });
    expect(events.filter((event) => event.type === 'wait-capped')).toEqual([
      expect.objectContaining({ source: 'Retry-After', askedMs: 999_999_999_000, waitMs: MAX_WAIT_MS }),
    ]);
    expect(events.filter((event) => event.type === 'budget-wait').length).toBeLessThanOrEqual(2);
  });

  it('in run, a reset in the year 3000 delays the job by at most maxWaitMs, and the Redis block never exceeds it', async () => {
    const prefix = uniqueName('bounds');
    const limiter = createRedisRateLimiter({ redis, prefix, maxWaitMs: MAX_WAIT_MS });
    const key = 'acme';
    const events: FetchEvent[] = [];
    const run = (path: string) =>
      client.get('v1', path, undefined, {
        budget: { limiter, key, bucket, maxWaitMs: 50 },
        retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10 },
        onEvent: (event) => events.push(event),
      });
    await run('/year-3000');
    expect(events.filter((event) => event.type === 'wait-capped')).toHaveLength(1);
    const delayed = await run('/calls').catch((caught: unknown) => caught);
    expect(isBudgetWaitError(delayed)).toBe(true);
    expect((delayed as { waitMs: number }).waitMs).toBeLessThanOrEqual(MAX_WAIT_MS + 100);
    const stored = await redis.hgetall(`${prefix}:ratelimit:${key}`);
    expect(Number(stored.we) - Date.now()).toBeLessThanOrEqual(MAX_WAIT_MS);

    // A block stored before the cap existed (or by a looser replica) is cut on its next use.
    await redis.hset(`${prefix}:ratelimit:${key}`, 'bu', String(Date.UTC(3000, 0, 1)));
    const take = await limiter.take(key, bucket);
    expect(take.granted ? 0 : take.waitMs).toBeLessThanOrEqual(MAX_WAIT_MS);
    expect(Number(await redis.hget(`${prefix}:ratelimit:${key}`, 'bu')) - Date.now()).toBeLessThanOrEqual(MAX_WAIT_MS);

    // `callsync resume` forgets the block: a fresh, full window.
    await clearRateLimitBlock(redis, prefix, key);
    expect(await limiter.inspect(key, bucket)).toMatchObject({ blockedUntilMs: null, remaining: bucket.limit });
  });
});
