import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { businessConfigHash, createRedisStatusStore, FailedBusinesses } from '../../../src/engine/state/index.js';
import { redisUrl, uniqueName } from '../services.js';
import { deleteKeys } from './harness.js';

describe('failed businesses: the mark holds until the business config changes', () => {
  const prefix = uniqueName('failed');
  const redis = new Redis(redisUrl);
  afterEach(async () => {
    await deleteKeys(prefix);
    await redis.quit();
  });

  it('keeps the mark for an unchanged config, lifts it for a changed or removed one', async () => {
    const statusStore = createRedisStatusStore({ redis, prefix });
    const failed = new FailedBusinesses({ redis, statusStore, prefix });
    const acme = { name: 'acme', apiKey: 'old-key', streams: ['calls'] };
    await failed.mark('acme', 'auth: revoked', businessConfigHash(acme));
    await failed.mark('beta', 'auth: revoked', businessConfigHash({ name: 'beta', apiKey: 'b' }));
    await failed.mark('gone', 'auth: revoked', businessConfigHash({ name: 'gone', apiKey: 'g' }));
    // Same content, other key order: not a change.
    const lifted = await failed.reconcile(
      new Map([
        ['acme', businessConfigHash({ streams: ['calls'], apiKey: 'old-key', name: 'acme' })],
        ['beta', businessConfigHash({ name: 'beta', apiKey: 'rotated' })],
      ]),
    );
    expect(lifted.sort()).toEqual(['beta', 'gone']);
    expect(await failed.reason('acme')).toBe('auth: revoked');
    expect(await failed.reason('beta')).toBeUndefined();
    expect(await failed.clear('acme')).toBe(true);
    expect(await statusStore.failedBusinesses()).toEqual({});
  });
});
