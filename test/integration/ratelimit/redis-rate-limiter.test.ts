import { describe, expect, it } from 'vitest';
import { createRedisRateLimiter } from '../../../src/source/ratelimit/index.js';
import type { BucketConfig } from '../../../src/source/ratelimit/index.js';
import { openMonitor, parseMonitorLine, type Monitor } from '../../support/redis-cost.js';
import { redisUrl, uniqueName } from '../services.js';
import { redisConnections } from '../support/redis-connections.js';

/**
 * MONITOR on a raw socket (ioredis's `monitor()` throws "Command queue state error" when a busy
 * Redis sends lines along with its OK): the commands naming `prefix`, from clients and from scripts.
 */
async function watch(prefix: string): Promise<{ seen: { args: string[]; source: string }[]; fence: Monitor['fence']; close(): void }> {
  const monitor = await openMonitor(redisUrl);
  const seen: { args: string[]; source: string }[] = [];
  monitor.on('line', (line) => {
    const parsed = parseMonitorLine(line);
    if (parsed !== undefined && parsed.args.some((a) => a.startsWith(prefix))) seen.push(parsed);
  });
  return { seen, fence: (redis) => monitor.fence(redis), close: () => monitor.close() };
}

const HOUR: BucketConfig = { limit: 100, windowMs: 3_600_000 };
const connect = redisConnections();

describe('Redis rate limiter', () => {
  it('is atomic under concurrent callers on eight connections: exactly the limit, remaining never negative', async () => {
    const prefix = uniqueName('atomic');
    const limiters = Array.from({ length: 8 }, () => createRedisRateLimiter({ redis: connect(), prefix }));
    const results = await Promise.all(limiters.flatMap((limiter) => Array.from({ length: 40 }, () => limiter.take('acme', HOUR))));
    expect(results.filter((r) => r.granted)).toHaveLength(100);
    const stored = await connect().hgetall(`${prefix}:ratelimit:acme`);
    expect(stored.rem).toBe('0');
  });

  it('costs one Redis command per take, four inside its script (the script runs its own reads and writes)', async () => {
    const prefix = uniqueName('commands');
    const redis = connect();
    const limiter = createRedisRateLimiter({ redis, prefix });
    await limiter.take('acme', HOUR); // loads the script into Redis's cache if it was not there
    // A learned limit (from a response's headers) is saved with the rest of the bucket, not apart.
    await limiter.observe('acme', { limit: 100, remaining: 99, resetAtMs: (await limiter.inspect('acme', HOUR)).resetAtMs }, HOUR);
    const monitor = await watch(prefix);
    const { seen } = monitor;
    for (let i = 0; i < 10; i += 1) await limiter.take('acme', HOUR);
    await monitor.fence(redis);
    monitor.close();
    const fromClient = seen.filter((s) => s.source !== 'lua');
    expect(fromClient).toHaveLength(10);
    expect(fromClient.every((s) => s.args[0]?.toLowerCase() === 'evalsha')).toBe(true);
    // Inside each (besides the keyless TIME): HMGET, one HSET, PEXPIRE.
    expect(seen.filter((s) => s.source === 'lua').map((s) => s.args[0]?.toLowerCase())).toEqual(
      Array.from({ length: 10 }, () => ['hmget', 'hset', 'pexpire']).flat(),
    );
  });

  it('sends no observe that would change nothing, and peeks at its own last take or observe without a round trip', async () => {
    const prefix = uniqueName('observe');
    const redis = connect();
    const limiter = createRedisRateLimiter({ redis, prefix });
    const minute: BucketConfig = { limit: 60, windowMs: 60_000 };
    await limiter.take('acme', minute);
    const resetAtMs = (await limiter.inspect('acme', minute)).resetAtMs;
    expect(limiter.peek?.('acme', minute)).toEqual({ limit: 60, remaining: 59, resetAtMs, blockedUntilMs: null, usedThisWindow: 1 });
    const monitor = await watch(prefix);
    await limiter.observe('acme', { limit: 60, remaining: 59, resetAtMs }, minute); // learns the limit: sent
    await limiter.take('acme', minute);
    await limiter.observe('acme', { limit: 60, remaining: 58, resetAtMs }, minute); // what the take left: not sent
    await limiter.observe('acme', { limit: 60, remaining: 40, resetAtMs }, minute); // the server counted more: sent
    // The bucket that observe left is the new last view: a response of that window saying no less sends nothing.
    await limiter.observe('acme', { limit: 60, remaining: 40, resetAtMs }, minute);
    expect(limiter.peek?.('acme', minute)).toEqual({ limit: 60, remaining: 40, resetAtMs, blockedUntilMs: null, usedThisWindow: 20 });
    await monitor.fence(redis);
    monitor.close();
    const scripts = monitor.seen.filter((s) => s.source !== 'lua').map((s) => String(s.args[0]).toLowerCase());
    // Three scripts (the first observe's may go as EVAL, loading it): the take and two observes.
    expect(scripts).toHaveLength(3);
    expect(scripts.every((name) => name.startsWith('eval'))).toBe(true);
    expect((await limiter.inspect('acme', minute)).remaining).toBe(40);
  });

  it('grants nothing when its reply is read too late to spend the token in its window, and the token stays spent', async () => {
    const prefix = uniqueName('late');
    const config: BucketConfig = { limit: 5, windowMs: 60_000 };
    // Mid-window on a clock of the test's: a grant leaves 29.9 s to spend it, up to the guard before the window's end.
    let now = Date.UTC(2026, 10, 28, 12, 0, 30);
    const limiter = createRedisRateLimiter({ redis: connect(), prefix, now: () => now });
    expect(await limiter.take('acme', config)).toEqual({ granted: true });
    // The reply of the next take is read 29.95 s after it was asked for (a process not scheduled,
    // a stalled loop): a request sent now could reach the server in the next window.
    const late = limiter.take('acme', config);
    now += 29_950;
    expect(await late).toEqual({ granted: false, waitMs: 0 });
    expect((await limiter.inspect('acme', config)).remaining).toBe(3);
    // Asked again, it is within the guard: it waits for the next window and its guard.
    expect(await limiter.take('acme', config)).toEqual({ granted: false, waitMs: 150 });
  });

  it('lets an idle bucket expire after its window', async () => {
    const prefix = uniqueName('expiry');
    const redis = connect();
    const limiter = createRedisRateLimiter({ redis, prefix });
    const config: BucketConfig = { limit: 5, windowMs: 60_000 };
    await limiter.take('acme', config);
    const { resetAtMs } = await limiter.inspect('acme', config);
    // Read before the PTTL: the TTL can only have shrunk since, however long the round trip took.
    const before = Date.now();
    const ttl = await redis.pttl(`${prefix}:ratelimit:acme`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(resetAtMs - before + config.windowMs + 1000 + 5);
  });

  it('keeps separate businesses apart and leaves the injected connection open on close', async () => {
    const prefix = uniqueName('separate');
    const redis = connect();
    const limiter = createRedisRateLimiter({ redis, prefix });
    const small: BucketConfig = { limit: 2, windowMs: HOUR.windowMs };
    await Promise.all([limiter.take('a', small), limiter.take('a', small), limiter.take('a', small)]);
    expect((await limiter.take('b', small)).granted).toBe(true);
    await limiter.close();
    expect(await redis.ping()).toBe('PONG');
  });
});
