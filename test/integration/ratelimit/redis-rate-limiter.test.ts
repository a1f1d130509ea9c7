import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisRateLimiter } from '../../../src/ratelimit/index.js';
import type { BucketConfig } from '../../../src/ratelimit/index.js';
import { redisUrl, uniqueName } from '../services.js';

const HOUR: BucketConfig = { limit: 100, windowMs: 3_600_000 };
const connections: Redis[] = [];
function connect(): Redis {
  const redis = new Redis(redisUrl);
  connections.push(redis);
  return redis;
}
afterAll(async () => {
  await Promise.all(connections.map((c) => c.quit()));
});

describe('Redis rate limiter', () => {
  it('is atomic under concurrent callers on eight connections: exactly the limit, remaining never negative', async () => {
    const prefix = uniqueName('atomic');
    const limiters = Array.from({ length: 8 }, () => createRedisRateLimiter({ redis: connect(), prefix }));
    const results = await Promise.all(
      limiters.flatMap((limiter) => Array.from({ length: 40 }, () => limiter.take('acme', HOUR))),
    );
    expect(results.filter((r) => r.granted)).toHaveLength(100);
    const stored = await connect().hgetall(`${prefix}:ratelimit:acme`);
    expect(stored.rem).toBe('0');
  });

  it('costs one Redis command per take (the script runs its own reads and writes)', async () => {
    const prefix = uniqueName('commands');
    const redis = connect();
    const limiter = createRedisRateLimiter({ redis, prefix });
    await limiter.take('acme', HOUR); // loads the script into Redis's cache if it was not there
    const monitor = await connect().monitor();
    const seen: { args: string[]; source: string }[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (args.some((a) => a.startsWith(prefix))) seen.push({ args, source });
    });
    await redis.ping(); // MONITOR is live once a later command has gone through
    for (let i = 0; i < 10; i += 1) await limiter.take('acme', HOUR);
    await redis.ping();
    await new Promise((resolve) => setTimeout(resolve, 50));
    monitor.disconnect();
    const fromClient = seen.filter((s) => s.source !== 'lua');
    expect(fromClient).toHaveLength(10);
    expect(fromClient.every((s) => s.args[0]?.toLowerCase() === 'evalsha')).toBe(true);
  });

  it('lets an idle bucket expire after its window', async () => {
    const prefix = uniqueName('expiry');
    const redis = connect();
    const limiter = createRedisRateLimiter({ redis, prefix });
    const config: BucketConfig = { limit: 5, windowMs: 60_000 };
    await limiter.take('acme', config);
    const { resetAtMs } = await limiter.inspect('acme', config);
    const ttl = await redis.pttl(`${prefix}:ratelimit:acme`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(resetAtMs - Date.now() + config.windowMs + 1000 + 50);
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
