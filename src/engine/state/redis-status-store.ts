import type { ChainableCommander } from 'ioredis';
import { keySpace, type KeySpace, type RedisClient } from '../../base/redis/index.js';
import { lagSecondsAt, type StreamGauges, type StreamStatus } from './stream-status.js';
import { validatePatch, type StatusPatch, type StoredStatus } from './status-patch.js';
import { decodeGauges, decodeStatus, encodePatch, GAUGE_FIELDS } from './redis-status-codec.js';
import { statusFieldReader, statusReader, statusWriter, type StreamWrite } from './redis-status-script.js';
import { ACTIVITY_RETENTION_MINUTES, activityMinutes, minuteLabel, minuteOf, validateActivity, type ActivityBucket, type StatusStore } from './status-store.js';

interface RedisStatusStoreOptions {
  /** A connection owned by the caller; `close()` leaves it open. */
  readonly redis: RedisClient;
  /** Namespace of this deployment's keys; everything lives under `${prefix}:status:`. */
  readonly prefix: string;
  /** Where the keys live when sharded or on a Redis Cluster. @defaultValue one untagged shard under `prefix` */
  readonly keys?: KeySpace;
  /** Clock for `updatedAt`, lag and activity windows. @defaultValue Date.now */
  readonly now?: () => number;
}

type ExecReply = [error: Error | null, result: unknown][] | null;

/** The reply of the last command of a MULTI, or the first error in it. */
function lastResult(reply: ExecReply): unknown {
  if (reply === null) throw new Error('status store transaction was aborted');
  for (const [error] of reply) if (error) throw error;
  return reply.at(-1)?.[1];
}

function asHash(value: unknown): Record<string, string> {
  return typeof value === 'object' && value !== null ? (value as Record<string, string>) : {};
}

/**
 * The status store of `run`, shared by every worker replica and read by `callsync status`.
 * Keys (names percent-encoded so `:` in a name cannot collide):
 * (`base` is the prefix, or the business's shard hash tag `{prefix:N}` in a tagged key space)
 * - `{base}:status:stream:{business}:{stream}`: one hash per stream;
 * - `{base}:status:streams`: set of `[business, stream]` JSON, the index `list()` walks, one per
 *   shard so the MULTI that writes a stream and indexes it stays in one hash slot;
 * - `{base}:status:failed`: hash business → reason, one per shard;
 * - `{base}:status:activity:{business}:{minute}`: records written in that minute, expiring
 *   {@link ACTIVITY_RETENTION_MINUTES} after it.
 * Each update is one MULTI: counters move by HINCRBY, so concurrent replicas never lose a count.
 * `write` is the same MULTI without the read-back; `writeMany` (a business job's status) sends
 * several streams' patches as one script call, as atomic, with one SADD for their index entries;
 * `list` reads the index, then the hashes a chunk per script call.
 */
export function createRedisStatusStore(options: RedisStatusStoreOptions): StatusStore {
  const { redis } = options;
  const now = options.now ?? Date.now;
  const space = options.keys ?? keySpace({ prefix: options.prefix });
  const base = (business: string): string => `${space.base(business)}:status`;
  const shards = Array.from({ length: space.shards }, (_, shard) => `${space.shardBase(shard)}:status`);
  const enc = encodeURIComponent;
  const streamKey = (business: string, stream: string): string => `${base(business)}:stream:${enc(business)}:${enc(stream)}`;
  const indexKey = (business: string): string => `${base(business)}:streams`;
  const failedKey = (business: string): string => `${base(business)}:failed`;
  const activityKey = (business: string, minute: number): string => `${base(business)}:activity:${enc(business)}:${minute}`;
  const writeStreams = statusWriter(redis);
  const readStreams = statusReader(redis);
  const readGauges = statusFieldReader(redis, GAUGE_FIELDS);
  /** Each shard's index members, `[business, stream]`. */
  const indexed = async (shard: string): Promise<[string, string][]> =>
    (await redis.smembers(`${shard}:streams`)).map((member) => JSON.parse(member) as [string, string]);
  const withLag = (status: StoredStatus, at = now()): StreamStatus => ({ ...status, lagSeconds: lagSecondsAt(status.lastSuccessAt, at) });
  /** The fields set and cleared and the counters added (one HSET, an HINCRBY per counter); the index entry is the caller's. */
  const patchCommands = (business: string, stream: string, patch: StatusPatch, multi: ChainableCommander): ChainableCommander => {
    validatePatch(patch);
    const key = streamKey(business, stream);
    const changes = encodePatch(business, stream, patch, new Date(now()).toISOString());
    multi.hset(key, changes.set);
    for (const [field, amount] of Object.entries(changes.add)) multi.hincrby(key, field, amount);
    return multi;
  };
  const indexMember = (business: string, stream: string): string => JSON.stringify([business, stream]);
  /** One MULTI: the stream's patch and its index entry. */
  const patchOne = (business: string, stream: string, patch: StatusPatch): ChainableCommander =>
    patchCommands(business, stream, patch, redis.multi()).sadd(indexKey(business), indexMember(business, stream));

  return {
    async update(business, stream, patch: StatusPatch) {
      const multi = patchOne(business, stream, patch).hgetall(streamKey(business, stream));
      const status = decodeStatus(asHash(lastResult(await multi.exec())));
      if (status === undefined) throw new Error(`status of ${business}/${stream} vanished during its update`);
      return withLag(status);
    },
    async write(business, stream, patch: StatusPatch) {
      lastResult(await patchOne(business, stream, patch).exec());
    },
    async writeMany(writes) {
      // One script call per shard (a job's writes are one business's: one call); a call never spans hash slots.
      const byShard = new Map<number, { index: string; streams: StreamWrite[] }>();
      const updatedAt = new Date(now()).toISOString();
      for (const { business, stream, patch } of writes) {
        validatePatch(patch);
        const shard = space.shardOf(business);
        let batch = byShard.get(shard);
        if (batch === undefined) {
          batch = { index: indexKey(business), streams: [] };
          byShard.set(shard, batch);
        }
        batch.streams.push({
          key: streamKey(business, stream),
          member: indexMember(business, stream),
          changes: encodePatch(business, stream, patch, updatedAt),
        });
      }
      for (const { index, streams } of byShard.values()) await writeStreams(index, streams);
    },
    async get(business, stream) {
      const status = decodeStatus(await redis.hgetall(streamKey(business, stream)));
      return status === undefined ? undefined : withLag(status);
    },
    async list() {
      // Shard by shard: a script on a Redis Cluster reads keys of one slot.
      const statuses: StoredStatus[] = [];
      for (const shard of shards) {
        const members = await indexed(shard);
        for (const hash of await readStreams(members.map(([business, stream]) => streamKey(business, stream)))) {
          const status = decodeStatus(hash);
          if (status !== undefined) statuses.push(status);
        }
      }
      statuses.sort((a, b) => (a.business === b.business ? cmp(a.stream, b.stream) : cmp(a.business, b.business)));
      // One instant for the whole list: a clock read per stream let two streams that fell behind together
      // differ by a second when the list took long to read, and reorder a page sorted by lag.
      const at = now();
      return statuses.map((status) => withLag(status, at));
    },
    async gauges() {
      const read: { members: [string, string][]; values: (string | null)[][] }[] = [];
      for (const shard of shards) {
        const members = await indexed(shard);
        read.push({ members, values: await readGauges(members.map(([business, stream]) => streamKey(business, stream))) });
      }
      // One instant for every stream of every shard, as in list().
      const at = now();
      const gauges: StreamGauges[] = [];
      for (const { members, values } of read)
        members.forEach(([business, stream], i) => {
          const gauge = decodeGauges(business, stream, values[i] ?? [], at);
          if (gauge !== undefined) gauges.push(gauge);
        });
      return gauges;
    },
    async remove(business, stream) {
      await redis.multi().del(streamKey(business, stream)).srem(indexKey(business), indexMember(business, stream)).exec();
    },
    async recordActivity(business, records, atMs) {
      validateActivity(records, atMs);
      const minute = minuteOf(atMs);
      const key = activityKey(business, minute);
      // Relative expiry on the store's clock, so replicas and Redis need not agree on the time.
      const ttlMs = (minute + ACTIVITY_RETENTION_MINUTES + 1) * 60_000 - now();
      if (ttlMs <= 0) return;
      lastResult(await redis.multi().incrby(key, records).pexpire(key, ttlMs).exec());
    },
    async activity(business, sinceMs): Promise<ActivityBucket[]> {
      const minutes = activityMinutes(sinceMs, now());
      const counts = await redis.mget(minutes.map((minute) => activityKey(business, minute)));
      return minutes.map((minute, i) => ({ minute: minuteLabel(minute), records: Number(counts[i] ?? 0) }));
    },
    async markBusinessFailed(business, reason) {
      await redis.hset(failedKey(business), business, reason);
    },
    async clearBusinessFailed(business) {
      await redis.hdel(failedKey(business), business);
    },
    async failedReason(business) {
      return (await redis.hget(failedKey(business), business)) ?? undefined;
    },
    async failedBusinesses() {
      const failed: [string, string][] = [];
      for (const shard of shards) failed.push(...Object.entries(await redis.hgetall(`${shard}:failed`)));
      return Object.fromEntries(failed.sort(([a], [b]) => cmp(a, b)));
    },
    close() {
      return Promise.resolve();
    },
  };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
