import { describe, expect, it } from 'vitest';
import { queueKeys } from '../../engine/queue/names.js';
import { sinkLockKey } from '../../engine/lease/stream-lease.js';
import { bySlotTag, configKeySpace, keySpace } from './key-space.js';

/** What Redis Cluster hashes (its spec): the text between the first `{` and the next `}` when not empty, else the whole key. */
function hashedPart(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('key space', () => {
  it("keeps today's single-Redis key names with one shard and no cluster", () => {
    const space = configKeySpace({ redis: { prefix: 'callsync', cluster: undefined }, queue: { shards: 1 } });
    expect(space.tagged).toBe(false);
    const keys = queueKeys(space);
    expect(keys.bull).toBe('callsync:bull');
    expect(keys.fullReconcileClaim('acme', 'calls')).toBe('callsync:reconcile:full:acme:calls');
    expect(sinkLockKey(space, 'sqlite:/x', 'acme', 'calls')).toBe(sinkLockKey('callsync', 'sqlite:/x', 'acme', 'calls'));
    expect(sinkLockKey(space, 'sqlite:/x', 'acme', 'calls')).toMatch(/^callsync:lock:[0-9a-f]{16}:acme:calls$/);
  });

  it('tags every key on a cluster, even with one shard (BullMQ needs a queue in one slot)', () => {
    const space = configKeySpace({ redis: { prefix: 'cs', cluster: ['127.0.0.1:7000'] }, queue: { shards: 1 } });
    expect(space.tagged).toBe(true);
    expect(queueKeys(space).bullOf(0)).toBe('{cs:0}:bull');
  });

  it("puts a business's keys and its shard's queue in one hash slot", () => {
    const space = keySpace({ prefix: 'callsync', shards: 8 });
    for (const business of ['acme', 'Bäckerei Müller', 'a:b', 'x{y}z', 'biz-0042']) {
      const keys = queueKeys(space);
      const slots = new Set(
        [
          keys.bullOf(space.shardOf(business)) + ':sync:wait',
          keys.repairClaim(business, 'calls'),
          keys.fullReconcileClaim(business, 'calls'),
          sinkLockKey(space, 's', business, 'calls'),
        ].map((key) => hashedPart(key)),
      );
      expect(slots.size).toBe(1);
    }
  });

  it('hashes a business to the same shard every time and spreads businesses over every shard', () => {
    const space = keySpace({ prefix: 'callsync', shards: 6 });
    const counts = new Array<number>(6).fill(0);
    for (let i = 0; i < 6_000; i += 1) counts[space.shardOf(`biz-${i}`)] = (counts[space.shardOf(`biz-${i}`)] ?? 0) + 1;
    for (const count of counts) expect(count).toBeGreaterThan(800);
    expect(keySpace({ prefix: 'other', shards: 6 }).shardOf('acme')).toBe(space.shardOf('acme'));
    expect(space.shardBase(space.shardOf('acme'))).toBe(space.base('acme'));
  });

  it('refuses shards without hash tags and shard indexes out of range', () => {
    expect(() => keySpace({ prefix: 'p', shards: 2, tagged: false })).toThrow(/hash-tagged/);
    expect(() => keySpace({ prefix: 'p', shards: 2 }).shardBase(2)).toThrow(/no shard 2/);
  });

  it('groups keys by hash tag for multi-key scripts, untagged keys together', () => {
    expect(bySlotTag(['{p:1}:lock:a', '{p:0}:lock:b', '{p:1}:lock:c'])).toEqual([['{p:1}:lock:a', '{p:1}:lock:c'], ['{p:0}:lock:b']]);
    expect(bySlotTag(['p:lock:a', 'p:lock:b', 'p:{}:x'])).toEqual([['p:lock:a', 'p:lock:b', 'p:{}:x']]);
  });
});
