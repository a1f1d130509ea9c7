import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { redisUrl } from '../services.js';

/**
 * A connector to the test Redis for one test file (or describe block, where it is called): every
 * connection it makes is quit after the last test there.
 */
export function redisConnections(): () => Redis {
  const connections: Redis[] = [];
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.quit()));
  });
  return () => {
    const redis = new Redis(redisUrl);
    connections.push(redis);
    return redis;
  };
}
