import { randomUUID } from 'node:crypto';
import { bySlotTag, type RedisClient } from '../../base/redis/index.js';

/** Takes every free key (`SET NX PX`); for a taken one answers its holder's value (0 when it expired meanwhile). */
const ACQUIRE_LUA = `local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('SET', key, ARGV[1], 'PX', ARGV[2], 'NX') then out[i] = 1 else out[i] = redis.call('GET', key) or 0 end
end
return out`;
/**
 * Values read with one MGET per chunk, not one GET per key: an idle business job frees three
 * keys, and every command inside a script counts on the server. Chunks keep `unpack` within
 * Lua's stack limit for a backfill holding thousands.
 */
const CHUNK_LUA = `local function chunks(keys, size)
  local out = {}
  for first = 1, #keys, size do out[#out + 1] = {unpack(keys, first, math.min(first + size - 1, #keys))} end
  return out
end
`;
/** Extends each key this holder still has; 1 renewed, 0 lost. */
const RENEW_LUA = `${CHUNK_LUA}local out = {}
local i = 0
for _, part in ipairs(chunks(KEYS, 500)) do
  local values = redis.call('MGET', unpack(part))
  for j, key in ipairs(part) do
    i = i + 1
    if values[j] == ARGV[1] then out[i] = redis.call('PEXPIRE', key, ARGV[2]) else out[i] = 0 end
  end
end
return out`;
/** Deletes each key that still holds `ARGV[1]`, never another holder's: one MGET and one DEL per chunk. */
const RELEASE_LUA = `${CHUNK_LUA}local n = 0
for _, part in ipairs(chunks(KEYS, 500)) do
  local values = redis.call('MGET', unpack(part))
  local mine = {}
  for j, key in ipairs(part) do if values[j] == ARGV[1] then mine[#mine + 1] = key end end
  if #mine > 0 then n = n + redis.call('DEL', unpack(mine)) end
end
return n`;

type Script = (numberOfKeys: number, ...keysAndArgs: (string | number)[]) => Promise<unknown>;
interface LeaseScripts {
  callsyncLeaseAcquire: Script;
  callsyncLeaseRenew: Script;
  callsyncLeaseRelease: Script;
}

const defined = new WeakSet<RedisClient>();

/** EVALSHA after the first call (ioredis loads the script once): one round trip, whatever the number of keys. */
function scripts(redis: RedisClient): LeaseScripts {
  if (!defined.has(redis)) {
    redis.defineCommand('callsyncLeaseAcquire', { lua: ACQUIRE_LUA });
    redis.defineCommand('callsyncLeaseRenew', { lua: RENEW_LUA });
    redis.defineCommand('callsyncLeaseRelease', { lua: RELEASE_LUA });
    defined.add(redis);
  }
  return redis as unknown as LeaseScripts;
}

/**
 * Deletes `key` if it still holds `value`: how a holder known to be gone (its process died) is
 * cleared without risking a live holder that took the key since.
 */
export async function clearLease(redis: RedisClient, key: string, value: string): Promise<void> {
  await scripts(redis).callsyncLeaseRelease(1, key, value);
}

interface LeaseGroupOptions {
  readonly redis: RedisClient;
  /** Expiry; renewed every third of it, so a killed holder frees its keys within `ttlMs`. */
  readonly ttlMs: number;
  /** Called once per key when a renewal finds it gone or taken (e.g. the process froze past `ttlMs`). */
  readonly onLost: (key: string) => void;
  /** The value stored in every key of the group; unique per holder. @defaultValue a random UUID */
  readonly token?: string;
}

/**
 * Keys one holder leases together: each key has one holder across every process (`SET NX PX`
 * with the holder's token), renewed and released only by that holder (compare-and-set scripts),
 * so a holder that lost a key never frees another's. Taking, renewing and releasing any number
 * of keys is one script, one round trip; under Redis Cluster the keys of one call must share a
 * slot (a business's keys do). BullMQ's job lock cannot give this: a job scheduler adds the next
 * run while the current one is still active when a run takes longer than the interval.
 */
export class LeaseGroup {
  readonly #scripts: LeaseScripts;
  readonly #ttlMs: number;
  readonly #token: string;
  readonly #onLost: (key: string) => void;
  readonly #held = new Set<string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: LeaseGroupOptions) {
    this.#scripts = scripts(options.redis);
    this.#ttlMs = options.ttlMs;
    this.#token = options.token ?? randomUUID();
    this.#onLost = options.onLost;
  }

  /** Keys this holder has now. */
  get held(): readonly string[] {
    return [...this.#held];
  }

  /**
   * Takes each of `keys` that is free.
   * @returns the keys another holder has, with the value it stored (undefined when it expired between the two reads)
   */
  async take(keys: readonly string[]): Promise<Map<string, string | undefined>> {
    const busy = new Map<string, string | undefined>();
    if (keys.length === 0) return busy;
    const reply = await this.#scripts.callsyncLeaseAcquire(keys.length, ...keys, this.#token, this.#ttlMs);
    if (!Array.isArray(reply) || reply.length !== keys.length) throw new Error('lease script returned an unexpected reply');
    keys.forEach((key, i) => {
      const answer: unknown = reply[i];
      if (answer === 1) this.#held.add(key);
      else busy.set(key, typeof answer === 'string' ? answer : undefined);
    });
    if (this.#held.size > 0) this.#renewing();
    return busy;
  }

  /** Frees `keys` (all held keys when omitted) if this holder still has them. Safe to call twice. */
  async release(keys: readonly string[] = this.held): Promise<void> {
    const mine = keys.filter((key) => this.#held.delete(key));
    if (this.#held.size === 0) this.#stopRenewing();
    // Under Redis Cluster a group may span businesses (a backfill's): one script per hash slot.
    for (const group of bySlotTag(mine)) await this.#scripts.callsyncLeaseRelease(group.length, ...group, this.#token);
  }

  #renewing(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.#renew(), Math.max(100, Math.floor(this.#ttlMs / 3)));
    this.#timer.unref();
  }

  #stopRenewing(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #renew(): Promise<void> {
    for (const keys of bySlotTag(this.held)) {
      let reply: unknown;
      try {
        reply = await this.#scripts.callsyncLeaseRenew(keys.length, ...keys, this.#token, this.#ttlMs);
      } catch {
        // A failed renewal is retried at the next tick; the keys survive until ttlMs.
        continue;
      }
      if (!Array.isArray(reply)) continue;
      keys.forEach((key, i) => {
        if (reply[i] === 1 || !this.#held.delete(key)) return;
        this.#onLost(key);
      });
    }
    if (this.#held.size === 0) this.#stopRenewing();
  }
}
