import type { ChainableCommander, Redis } from 'ioredis';
import { lagSecondsAt, type StreamStatus } from './stream-status.js';
import { validatePatch, type StatusPatch, type StoredStatus } from './status-patch.js';
import { decodeStatus, encodePatch } from './redis-status-codec.js';
import {
  ACTIVITY_RETENTION_MINUTES,
  activityMinutes,
  minuteLabel,
  minuteOf,
  validateActivity,
  type ActivityBucket,
  type StatusStore,
} from './status-store.js';

export interface RedisStatusStoreOptions {
  /** A connection owned by the caller; `close()` leaves it open. */
  readonly redis: Redis;
  /** Namespace of this deployment's keys; everything lives under `${prefix}:status:`. */
  readonly prefix: string;
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
 * - `{prefix}:status:stream:{business}:{stream}`: one hash per stream;
 * - `{prefix}:status:streams`: set of `[business, stream]` JSON, the index `list()` walks;
 * - `{prefix}:status:failed`: hash business → reason;
 * - `{prefix}:status:activity:{business}:{minute}`: records written in that minute, expiring
 *   {@link ACTIVITY_RETENTION_MINUTES} after it.
 * Each update is one MULTI: counters move by HINCRBY, so concurrent replicas never lose a count.
 * `write` is the same MULTI without the read-back; `writeMany` puts several in one MULTI.
 */
export function createRedisStatusStore(options: RedisStatusStoreOptions): StatusStore {
  const { redis } = options;
  const now = options.now ?? Date.now;
  const base = `${options.prefix}:status`;
  const enc = encodeURIComponent;
  const streamKey = (business: string, stream: string): string => `${base}:stream:${enc(business)}:${enc(stream)}`;
  const indexKey = `${base}:streams`;
  const failedKey = `${base}:failed`;
  const activityKey = (business: string, minute: number): string => `${base}:activity:${enc(business)}:${minute}`;
  const withLag = (status: StoredStatus): StreamStatus => ({ ...status, lagSeconds: lagSecondsAt(status.lastSuccessAt, now()) });
  /** One MULTI: the fields set and cleared, the counters added, the stream in the index. */
  const patchCommands = (business: string, stream: string, patch: StatusPatch, multi: ChainableCommander = redis.multi()): ChainableCommander => {
    validatePatch(patch);
    const key = streamKey(business, stream);
    const changes = encodePatch(business, stream, patch, new Date(now()).toISOString());
    multi.hset(key, changes.set);
    if (changes.unset.length > 0) multi.hdel(key, ...changes.unset);
    for (const [field, amount] of Object.entries(changes.add)) multi.hincrby(key, field, amount);
    return multi.sadd(indexKey, JSON.stringify([business, stream]));
  };

  return {
    async update(business, stream, patch: StatusPatch) {
      const multi = patchCommands(business, stream, patch).hgetall(streamKey(business, stream));
      const status = decodeStatus(asHash(lastResult(await multi.exec())));
      if (status === undefined) throw new Error(`status of ${business}/${stream} vanished during its update`);
      return withLag(status);
    },
    async write(business, stream, patch: StatusPatch) {
      lastResult(await patchCommands(business, stream, patch).exec());
    },
    async writeMany(writes) {
      if (writes.length === 0) return;
      const multi = redis.multi();
      for (const { business, stream, patch } of writes) patchCommands(business, stream, patch, multi);
      lastResult(await multi.exec());
    },
    async get(business, stream) {
      const status = decodeStatus(await redis.hgetall(streamKey(business, stream)));
      return status === undefined ? undefined : withLag(status);
    },
    async list() {
      const members = (await redis.smembers(indexKey)).map((member) => JSON.parse(member) as [string, string]);
      if (members.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const [business, stream] of members) pipeline.hgetall(streamKey(business, stream));
      const replies = (await pipeline.exec()) ?? [];
      const statuses: StoredStatus[] = [];
      for (const [error, hash] of replies) {
        if (error) throw error;
        const status = decodeStatus(asHash(hash));
        if (status !== undefined) statuses.push(status);
      }
      statuses.sort((a, b) => (a.business === b.business ? cmp(a.stream, b.stream) : cmp(a.business, b.business)));
      return statuses.map(withLag);
    },
    async remove(business, stream) {
      await redis.multi().del(streamKey(business, stream)).srem(indexKey, JSON.stringify([business, stream])).exec();
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
      await redis.hset(failedKey, business, reason);
    },
    async clearBusinessFailed(business) {
      await redis.hdel(failedKey, business);
    },
    async failedReason(business) {
      return (await redis.hget(failedKey, business)) ?? undefined;
    },
    async failedBusinesses() {
      const failed = await redis.hgetall(failedKey);
      return Object.fromEntries(Object.entries(failed).sort(([a], [b]) => cmp(a, b)));
    },
    close() {
      return Promise.resolve();
    },
  };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
