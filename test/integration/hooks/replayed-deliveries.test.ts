import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { SeenDeliveries } from '../../../src/entry/hooks/delivery-log.js';
import { redisUrl, uniqueName } from '../services.js';
import { cleanupSteps } from '../support/cleanup-steps.js';
import { deleteKeys } from '../worker/harness.js';
import { deliver, signed, startReceiver } from './hostile-client.js';

const SECRET = 'acme-secret-1';
const BUSINESSES = new Map([['acme', { secret: SECRET, streams: ['calls'] }]]);

describe('replayed webhook deliveries (real Redis, two replicas)', () => {
  const cleanup = cleanupSteps();

  it('accepts a signed delivery once: its replays within the tolerance, to either replica, are answered 200 duplicate without a sync', async () => {
    const prefix = uniqueName('replays');
    const redis = new Redis(redisUrl);
    cleanup.push(async () => {
      await deleteKeys(prefix);
      redis.disconnect();
    });
    const seen = new SeenDeliveries(redis, prefix);
    const replicas = [
      await startReceiver({}, BUSINESSES, { firstSighting: (business, id, ttlMs) => seen.first(business, id, ttlMs) }),
      await startReceiver({}, BUSINESSES, { firstSighting: (business, id, ttlMs) => seen.first(business, id, ttlMs) }),
    ];
    for (const replica of replicas) cleanup.push(() => replica.close());
    const body = '{"event":"call.created","id":"evt_1"}';
    const headers = signed(SECRET, body);
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push(await deliver(replicas[i % 2]!.url, '/hooks/acme', body, headers));
    expect(statuses[0]).toBe(202);
    expect(statuses.slice(1)).toEqual(Array(99).fill(200));
    expect([...replicas[0]!.triggered, ...replicas[1]!.triggered]).toEqual(['acme']);
    // The same event signed again a second later is a new delivery (a sender's retry signs afresh).
    const later = signed(SECRET, body, Math.floor(Date.now() / 1000) + 1);
    expect(await deliver(replicas[0]!.url, '/hooks/acme', body, later)).toBe(202);
    const ttl = await redis.pttl((await redis.keys(`${prefix}:hooks:seen:acme:*`))[0]!);
    expect(ttl).toBeGreaterThan(300_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
  });
});
