import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createRedisStatusStore } from '../../../src/engine/state/index.js';
import { openMonitor, parseMonitorLine } from '../../support/redis-cost.js';
import { redisUrl, uniqueName } from '../services.js';
import { describeStatusStoreContract } from './status-store-contract.js';
import { redisConnections } from '../support/redis-connections.js';

const connect = redisConnections();

/** What `action` returned, and the names of the commands it sent naming a key under `prefix` (MONITOR; script bodies left out). */
async function sentWhile<T>(prefix: string, action: () => Promise<T>): Promise<{ result: T; sent: string[] }> {
  const monitor = await openMonitor(redisUrl);
  const sent: string[] = [];
  monitor.on('line', (line) => {
    const parsed = parseMonitorLine(line);
    if (parsed !== undefined && parsed.source !== 'lua' && parsed.args.some((a) => a.startsWith(prefix))) sent.push(String(parsed.args[0]).toLowerCase());
  });
  const result = await action();
  await monitor.fence(connect());
  monitor.close();
  return { result, sent };
}

describeStatusStoreContract('Redis', (now) => Promise.resolve(createRedisStatusStore({ redis: connect(), prefix: uniqueName('status'), now })));

describe('Redis status store across connections', () => {
  it('loses no counter or activity when two replicas update the same stream at once', async () => {
    const prefix = uniqueName('replicas');
    const [a, b] = [createRedisStatusStore({ redis: connect(), prefix }), createRedisStatusStore({ redis: connect(), prefix })];
    const at = Date.now();
    await Promise.all(
      [a, b].flatMap((store, replica) =>
        Array.from({ length: 100 }, (_, i) => [
          store.update('acme', 'calls', { state: 'syncing', lastError: `replica ${replica}`, increment: { recordsSynced: 7, pages: 1 } }),
          store.recordActivity('acme', i % 3, at),
        ]).flat(),
      ),
    );
    const seenByA = await a.get('acme', 'calls');
    expect(seenByA).toMatchObject({ state: 'syncing', recordsSynced: 1400, pages: 200 });
    expect(['replica 0', 'replica 1']).toContain(seenByA?.lastError);
    expect(await b.get('acme', 'calls')).toEqual(seenByA);
    const activity = await b.activity('acme', at);
    expect(activity.reduce((sum, bucket) => sum + bucket.records, 0)).toBe(2 * 99);
  });

  it('lists 1,200 streams, and reads their gauges, with one command for the index and one per 500 hashes, not one per stream', async () => {
    const prefix = uniqueName('list');
    const store = createRedisStatusStore({ redis: connect(), prefix });
    const names = Array.from({ length: 400 }, (_, i) => `b${String(i).padStart(3, '0')}`);
    for (const business of names) {
      await store.writeMany(['calls', 'numbers', 'voicemails'].map((stream) => ({ business, stream, patch: { state: 'idle', increment: { pages: 1 } } })));
    }
    await store.update('missing', 'calls', { state: 'idle' });
    await connect().del(`${prefix}:status:stream:missing:calls`); // indexed but gone: left out, as before
    const listed = await sentWhile(prefix, () => store.list());
    expect(listed.result).toHaveLength(1_200);
    expect(listed.result[0]).toMatchObject({ business: 'b000', stream: 'calls', state: 'idle', pages: 1 });
    expect(listed.result.at(-1)).toMatchObject({ business: 'b399', stream: 'voicemails' });
    const gauges = await sentWhile(prefix, () => store.gauges());
    expect(gauges.result).toHaveLength(1_200);
    for (const { sent } of [listed, gauges]) {
      expect(sent.filter((name) => name === 'smembers')).toHaveLength(1);
      expect(sent.filter((name) => name.startsWith('eval'))).toHaveLength(3);
      expect(sent).toHaveLength(4);
    }
  });

  it('is readable by a fresh connection with no writer alive (what `callsync status` does)', async () => {
    const prefix = uniqueName('reader');
    const writerConnection = new Redis(redisUrl);
    await createRedisStatusStore({ redis: writerConnection, prefix }).update('acme', 'voicemails', {
      state: 'gap_warning',
      warning: 'full page with nothing at or before the high-water mark',
      budget: { limit: 60, usedThisWindow: 59, resetAt: '2024-05-01T12:01:00.000Z' },
    });
    await writerConnection.quit();
    const reader = createRedisStatusStore({ redis: connect(), prefix });
    expect(await reader.list()).toEqual([
      expect.objectContaining({
        business: 'acme',
        stream: 'voicemails',
        state: 'gap_warning',
        budget: { limit: 60, usedThisWindow: 59, resetAt: '2024-05-01T12:01:00.000Z' },
      }),
    ]);
  });

  it('keeps every key under its prefix and lets activity expire after the retention', async () => {
    const prefix = uniqueName('keys');
    const redis = connect();
    const store = createRedisStatusStore({ redis, prefix });
    const at = Date.now();
    await store.update('acme', 'calls', { increment: { pages: 1 } });
    await store.recordActivity('acme', 3, at);
    await store.markBusinessFailed('acme', 'upstream 401');
    const keys = await redis.keys(`${prefix}:*`);
    expect(keys.sort()).toEqual(
      [
        `${prefix}:status:activity:acme:${Math.floor(at / 60_000)}`,
        `${prefix}:status:failed`,
        `${prefix}:status:stream:acme:calls`,
        `${prefix}:status:streams`,
      ].sort(),
    );
    const ttl = await redis.pttl(`${prefix}:status:activity:acme:${Math.floor(at / 60_000)}`);
    expect(ttl).toBeGreaterThan(120 * 60_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(121 * 60_000);
    expect(await redis.pttl(`${prefix}:status:stream:acme:calls`)).toBe(-1);
  });

  it('clears a field by emptying it in the same HSET, and reads an empty or absent field as null', async () => {
    const prefix = uniqueName('cleared');
    const redis = connect();
    const store = createRedisStatusStore({ redis, prefix });
    const key = `${prefix}:status:stream:acme:calls`;
    await store.write('acme', 'calls', {
      state: 'failed',
      lastError: 'boom',
      warning: 'gap',
      difference: 3,
      budget: { limit: 60, usedThisWindow: 1, resetAt: '2024-05-01T12:01:00.000Z' },
    });
    await store.write('acme', 'calls', { state: 'idle', lastError: null, warning: null, difference: null, budget: null });
    expect(await redis.hmget(key, 'lastError', 'warning', 'difference', 'budget')).toEqual(['', '', '', '']);
    expect(await store.get('acme', 'calls')).toMatchObject({ state: 'idle', lastError: null, warning: null, difference: null, budget: null });
    // A hash an older version wrote, with cleared fields absent.
    await redis.hdel(key, 'lastError', 'warning', 'difference', 'budget');
    expect(await store.get('acme', 'calls')).toMatchObject({ lastError: null, warning: null, difference: null, budget: null, lastSuccessAt: null });
  });

  it('ignores a corrupt field written by something else instead of failing the whole read', async () => {
    const prefix = uniqueName('corrupt');
    const redis = connect();
    const store = createRedisStatusStore({ redis, prefix });
    await store.update('acme', 'calls', { state: 'failed', budget: { limit: 60, usedThisWindow: 1, resetAt: 'x' } });
    await redis.hset(`${prefix}:status:stream:acme:calls`, { state: 'exploded', budget: '{not json', pages: 'many' });
    expect(await store.get('acme', 'calls')).toMatchObject({ state: 'idle', budget: null, pages: 0 });
  });
});

describe('Redis status store list', () => {
  it('gives every stream its lag at one instant, however long the list takes to read', async () => {
    const prefix = uniqueName('one-instant');
    const successAt = Date.parse('2026-01-01T00:00:00.000Z');
    const writer = createRedisStatusStore({ redis: connect(), prefix, now: () => successAt });
    for (const business of ['a', 'b', 'c']) await writer.update(business, 'calls', { state: 'idle', lastSuccessAt: new Date(successAt).toISOString() });
    // A clock that moves on at every read, across a second boundary: one read must serve the whole list.
    let reads = 0;
    const reader = createRedisStatusStore({ redis: connect(), prefix, now: () => successAt + 59_999 + reads++ });
    const lags = (await reader.list()).map((status) => status.lagSeconds);
    expect(lags).toEqual([59, 59, 59]);
  });
});
