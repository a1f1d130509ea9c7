import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRateLimiter, createRedisRateLimiter } from '../../../src/source/ratelimit/index.js';
import type { BucketConfig } from '../../../src/source/ratelimit/index.js';
import { createUpstreamClient } from '../../../src/source/upstream/index.js';
import type { UpstreamClient } from '../../../src/source/upstream/index.js';
import { budgetUse } from '../../support/budget-use.js';
import { redisUrl, uniqueName } from '../services.js';
import { startFixedWindowServer } from './fixed-window-server.js';
import type { FixedWindowServer } from './fixed-window-server.js';

const API_KEY = 'ck_live_integration_SECRET';
const retry = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 };

describe('upstream client over real HTTP', () => {
  let server: FixedWindowServer;
  let client: UpstreamClient;
  beforeAll(async () => {
    server = await startFixedWindowServer({ limit: 1_000, windowMs: 60_000, apiKey: API_KEY });
    client = createUpstreamClient({ baseUrl: server.baseUrl, timeoutMs: 300, credentials: { apiKey: API_KEY } });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  const fetch = (path: string) =>
    client.get('v1', path, undefined, {
      budget: { limiter: createMemoryRateLimiter(), key: 'acme', bucket: { limit: 1_000, windowMs: 60_000 }, maxWaitMs: Infinity },
      retry,
    });

  it('classifies a body cut off mid-way as UND_TRUNCATED_BODY and retries it', async () => {
    await expect(client.get('v1', '/truncated')).rejects.toMatchObject({ kind: 'transient', code: 'UND_TRUNCATED_BODY', status: 200 });
    expect((await fetch('/truncated')).payload).toEqual({ calls: [], has_more: false });
  });

  it('retries a connection reset by the server', async () => {
    expect((await fetch('/reset')).status).toBe(200);
    expect(server.hits.get('/api/v1/reset')).toBe(2);
  });

  it('fails a silent server at the request deadline (upstream.timeoutMs)', async () => {
    await expect(client.get('v1', '/silent')).rejects.toMatchObject({
      kind: 'transient',
      code: 'UPSTREAM_TIMEOUT',
      message: expect.stringContaining('upstream.timeoutMs') as unknown,
    });
  });
});

describe('two replicas sharing a Redis bucket against a fixed-window server', () => {
  const windowMs = 1_000;
  // Four workers ask for far more than 10 a second, so each window's tokens normally go right after
  // it opens, far from its end, where a loaded machine's delay before the server stamps a request
  // could carry it into the next window.
  const bucket: BucketConfig = { limit: 10, windowMs };
  let server: FixedWindowServer;
  const connections: Redis[] = [];
  beforeAll(async () => {
    server = await startFixedWindowServer({ limit: bucket.limit, windowMs, apiKey: API_KEY });
  });
  afterAll(async () => {
    await server.close();
    await Promise.all(connections.map((c) => c.quit()));
  });

  it('uses at least 90% of every whole window, refused at most a straggler a window', async () => {
    const prefix = uniqueName('replicas');
    const replicas = [0, 1].map(() => {
      const redis = new Redis(redisUrl);
      connections.push(redis);
      return {
        limiter: createRedisRateLimiter({ redis, prefix }),
        client: createUpstreamClient({ baseUrl: server.baseUrl, timeoutMs: 5_000, credentials: { apiKey: API_KEY } }),
      };
    });
    const controller = new AbortController();
    const until = Date.now() + 4.5 * windowMs;
    const worker = async (replica: (typeof replicas)[number]): Promise<void> => {
      while (Date.now() < until) {
        await replica.client
          .get('v1', '/calls', undefined, {
            budget: { limiter: replica.limiter, key: 'acme', bucket, maxWaitMs: Infinity },
            retry,
            signal: controller.signal,
          })
          .catch((error: unknown) => {
            if (!controller.signal.aborted) throw error;
          });
      }
    };
    const stop = setTimeout(() => controller.abort(), until - Date.now());
    await Promise.all(replicas.flatMap((replica) => [1, 2].map(() => worker(replica))));
    clearTimeout(stop);
    await Promise.all(replicas.map((r) => r.client.close()));

    // Measured as the bench measures it: partial first and last window out, an empty one in between counted.
    const served = [...server.served].sort(([a], [b]) => a - b).map(([index, count]) => ({ startMs: index * windowMs, count, admitted: count }));
    const use = budgetUse(served, bucket.limit, windowMs);
    expect(use.windows).toBeGreaterThanOrEqual(3);
    // Replicas with a bucket each would be refused about half of what they send (10 a window here).
    // A grant just before a window's end can reach a starved server after it and count in the next
    // window: on a busy machine that happens at most once a window, never more. Zero is asserted
    // end to end in test/integration/worker/three-replicas.test.ts, where the pace keeps grants early.
    expect(server.rejected).toBeLessThanOrEqual(use.windows);
    // The rate itself is the bench's (figure 1, ≥ 0.97); this holds it to what a busy machine allows.
    expect(use.ratio).toBeGreaterThanOrEqual(0.9);
  });
});
