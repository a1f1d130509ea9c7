import { crc32 } from 'node:zlib';

/**
 * Where a deployment's Redis keys live. Untagged (one shard on a single Redis, today's layout):
 * every key starts with `{prefix}`. Tagged (a Redis Cluster, or more than one shard): every key
 * starts with its shard's hash tag `{prefix:N}`, so a business's keys (status, limiter bucket,
 * locks, claims) and its shard's BullMQ queue share one hash slot, and every MULTI or script
 * touches one slot.
 */
export interface KeySpace {
  readonly prefix: string;
  /** How many BullMQ queues the businesses are spread over. */
  readonly shards: number;
  /** Whether keys carry hash tags. */
  readonly tagged: boolean;
  /** The shard of a business: a stable hash of its name, the same in every process and version. */
  shardOf(business: string): number;
  /** The start of every key of a shard: `prefix` untagged, `{prefix:N}` tagged. */
  shardBase(shard: number): string;
  /** {@link shardBase} of the business's shard. */
  base(business: string): string;
}

interface KeySpaceSettings {
  readonly prefix: string;
  /** @defaultValue 1 */
  readonly shards?: number;
  /** @defaultValue more than one shard */
  readonly tagged?: boolean;
}

export function keySpace(settings: KeySpaceSettings): KeySpace {
  const shards = settings.shards ?? 1;
  const tagged = settings.tagged ?? shards > 1;
  if (!Number.isInteger(shards) || shards < 1) throw new RangeError(`shards must be a whole number ≥ 1, got ${shards}`);
  if (!tagged && shards > 1) throw new RangeError('more than one shard needs hash-tagged keys');
  const bases = Array.from({ length: shards }, (_, shard) => (tagged ? `{${settings.prefix}:${shard}}` : settings.prefix));
  const shardOf = (business: string): number => (shards === 1 ? 0 : crc32(business) % shards);
  return {
    prefix: settings.prefix,
    shards,
    tagged,
    shardOf,
    shardBase(shard) {
      const base = bases[shard];
      if (base === undefined) throw new RangeError(`no shard ${shard} (shards: ${shards})`);
      return base;
    },
    base: (business) => bases[shardOf(business)] ?? settings.prefix,
  };
}

/** The key space a config describes: tagged on a Redis Cluster or with more than one shard. */
export function configKeySpace(config: {
  readonly redis: { readonly prefix: string; readonly cluster?: readonly string[] | undefined };
  readonly queue: { readonly shards: number };
}): KeySpace {
  return keySpace({ prefix: config.redis.prefix, shards: config.queue.shards, tagged: config.redis.cluster !== undefined || config.queue.shards > 1 });
}

/** A key space given as itself, or as a bare prefix (one untagged shard: today's single-Redis layout). */
export function asKeySpace(space: KeySpace | string): KeySpace {
  return typeof space === 'string' ? keySpace({ prefix: space }) : space;
}

/**
 * Keys grouped so each group may go into one multi-key command or script under Redis Cluster:
 * by hash tag (the text between the first `{` and the next `}`, Redis Cluster's rule); keys
 * without one form a single group, as on one Redis (an untagged key space is never a cluster's).
 */
export function bySlotTag(keys: readonly string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const key of keys) {
    const open = key.indexOf('{');
    const close = open < 0 ? -1 : key.indexOf('}', open + 1);
    const tag = close > open + 1 ? key.slice(open, close + 1) : '';
    const group = groups.get(tag);
    if (group === undefined) groups.set(tag, [key]);
    else group.push(key);
  }
  return [...groups.values()];
}
