import { chunks } from '../../base/chunks.js';
import type { RedisClient } from '../../base/redis/index.js';
import type { HashChanges } from './redis-status-codec.js';

/**
 * Several streams' status patches and their index entries in one script call: per stream one
 * HSET and an HINCRBY per counter, then one SADD for the index. A MULTI of the same commands
 * cost the worker a client command each (an idle business job's end was fourteen) and the server
 * its MULTI and EXEC; the script is one command to send and as atomic.
 * KEYS: the index set, then each stream's hash. ARGV per stream: its index member, the number of
 * fields set, field and value pairs, the number of counters, counter and amount pairs.
 */
const WRITE_LUA = `local a = 1
local members = {}
for k = 2, #KEYS do
  members[#members + 1] = ARGV[a]
  local set = tonumber(ARGV[a + 1])
  a = a + 2
  if set > 0 then redis.call('HSET', KEYS[k], unpack(ARGV, a, a + 2 * set - 1)) end
  a = a + 2 * set
  local add = tonumber(ARGV[a])
  a = a + 1
  for _ = 1, add do
    redis.call('HINCRBY', KEYS[k], ARGV[a], ARGV[a + 1])
    a = a + 2
  end
end
return redis.call('SADD', KEYS[1], unpack(members))`;

/**
 * Every hash of KEYS, in order, as HGETALL gives it (field, value, …; empty when missing): the
 * status page reads every stream, and a command per stream cost the worker a client command each
 * (3,000 a read at 1,000 businesses) where one per chunk does.
 */
export const STATUS_READ_LUA = `local out = {}
for i, key in ipairs(KEYS) do out[i] = redis.call('HGETALL', key) end
return out`;

/**
 * The fields ARGV of every hash of KEYS, in order (false for a missing field): a `/metrics` scrape
 * needs four of a status's fifteen, and reading and decoding the rest was most of its cost.
 */
export const STATUS_FIELDS_LUA = `local out = {}
for i, key in ipairs(KEYS) do out[i] = redis.call('HMGET', key, unpack(ARGV)) end
return out`;

/** Keys per read script: a few milliseconds of Redis at most, so other clients never wait long behind it. */
const READ_CHUNK = 500;

/** One stream's part of a write: its hash, its index member, and what changes. */
export interface StreamWrite {
  readonly key: string;
  readonly member: string;
  readonly changes: HashChanges;
}

type Script = (numberOfKeys: number, ...keysAndArgs: (string | number)[]) => Promise<unknown>;

const defined = new WeakSet<RedisClient>();

interface StatusScripts {
  callsyncStatusWrite: Script;
  callsyncStatusRead: Script;
  callsyncStatusFields: Script;
}

function defineScripts(redis: RedisClient): StatusScripts {
  if (!defined.has(redis)) {
    redis.defineCommand('callsyncStatusWrite', { lua: WRITE_LUA });
    redis.defineCommand('callsyncStatusRead', { lua: STATUS_READ_LUA, readOnly: true });
    redis.defineCommand('callsyncStatusFields', { lua: STATUS_FIELDS_LUA, readOnly: true });
    defined.add(redis);
  }
  return redis as unknown as StatusScripts;
}

/** `script` over `keys` a {@link READ_CHUNK} at a time, each key's reply an array: one reply per key, in order. */
async function readInChunks(script: Script, redis: RedisClient, keys: readonly string[], args: readonly string[]): Promise<unknown[][]> {
  const replies: unknown[][] = [];
  for (const part of chunks(keys, READ_CHUNK)) {
    const reply = await script.call(redis, part.length, ...part, ...args);
    if (!Array.isArray(reply) || reply.length !== part.length) throw new Error('status read script returned an unexpected reply');
    for (const one of reply as unknown[]) replies.push(Array.isArray(one) ? (one as unknown[]) : []);
  }
  return replies;
}

/** Reads the hashes of `keys` (all under one hash tag, so one slot on a Redis Cluster), a chunk of them per script call. */
export function statusReader(redis: RedisClient): (keys: readonly string[]) => Promise<Record<string, string>[]> {
  const { callsyncStatusRead } = defineScripts(redis);
  return async (keys) =>
    (await readInChunks(callsyncStatusRead, redis, keys, [])).map((flat) => {
      const hash: Record<string, string> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) hash[String(flat[i])] = String(flat[i + 1]);
      return hash;
    });
}

/** Reads `fields` of the hashes of `keys` (one hash tag, as {@link statusReader}): per key its values in order, null when absent. */
export function statusFieldReader(redis: RedisClient, fields: readonly string[]): (keys: readonly string[]) => Promise<(string | null)[][]> {
  const { callsyncStatusFields } = defineScripts(redis);
  return async (keys) =>
    (await readInChunks(callsyncStatusFields, redis, keys, fields)).map((values) => values.map((value) => (typeof value === 'string' ? value : null)));
}

/** Writes `streams` (all under one hash tag, so one slot on a Redis Cluster) and adds them to `index`, atomically. */
export function statusWriter(redis: RedisClient): (index: string, streams: readonly StreamWrite[]) => Promise<void> {
  const script = defineScripts(redis).callsyncStatusWrite.bind(redis);
  return async (index, streams) => {
    if (streams.length === 0) return;
    const args: (string | number)[] = [];
    for (const { member, changes } of streams) {
      const set = Object.entries(changes.set);
      const add = Object.entries(changes.add);
      args.push(member, set.length, ...set.flat(), add.length, ...add.flat());
    }
    await script(streams.length + 1, index, ...streams.map((s) => s.key), ...args);
  };
}
