import { asKeySpace, type KeySpace, type RedisClient } from '../../base/redis/index.js';
import { DEFAULT_MAX_WAIT_MS } from '../../http/server-wait.js';
import { DEFAULT_GUARD_MS } from './fixed-window.js';
import { BLOCK_LUA, INSPECT_LUA, OBSERVE_LUA, TAKE_LUA } from './redis-scripts.js';
import type { BucketConfig, BucketView, RateLimiter, RateLimitInfo, TakeResult, TokensTaken } from './types.js';

interface RedisRateLimiterOptions {
  /** A connection owned by the caller; `close()` leaves it open. */
  readonly redis: RedisClient;
  /** Namespace of this deployment's keys; the bucket of `key` lives at `${prefix}:ratelimit:${key}`. */
  readonly prefix: string;
  /**
   * Where the keys live when sharded or on a Redis Cluster: the bucket of `key` (a business name)
   * under the hash tag of that business's shard. @defaultValue one untagged shard under `prefix`
   */
  readonly keys?: KeySpace;
  /** Guard around window boundaries, capped at a tenth of the window. @defaultValue 25 */
  readonly guardMs?: number;
  /** Longest block or window end stored (`upstream.maxWaitMs`); older, longer ones are cut on next use. @defaultValue 15 min */
  readonly maxWaitMs?: number;
  /**
   * Clock in epoch ms in place of Redis's `TIME`, for tests that step time; every limiter of a
   * deployment must share it. @defaultValue Redis's clock
   */
  readonly now?: () => number;
}

type Script = (key: string, ...args: (string | number)[]) => Promise<unknown>;

const NO_CLOCK: readonly number[] = [];

interface LimiterScripts {
  callsyncRateLimitTake: Script;
  callsyncRateLimitObserve: Script;
  callsyncRateLimitBlock: Script;
  callsyncRateLimitInspect: Script;
}

function defineScripts(redis: RedisClient): LimiterScripts {
  // defineCommand sends EVALSHA (EVAL once if the script cache lacks it): one round trip a call.
  redis.defineCommand('callsyncRateLimitTake', { numberOfKeys: 1, lua: TAKE_LUA });
  redis.defineCommand('callsyncRateLimitObserve', { numberOfKeys: 1, lua: OBSERVE_LUA });
  redis.defineCommand('callsyncRateLimitBlock', { numberOfKeys: 1, lua: BLOCK_LUA });
  redis.defineCommand('callsyncRateLimitInspect', { numberOfKeys: 1, lua: INSPECT_LUA, readOnly: true });
  return redis as unknown as LimiterScripts;
}

function integers(reply: unknown, ...lengths: number[]): number[] {
  if (!Array.isArray(reply) || !lengths.includes(reply.length)) throw new Error('rate limiter script returned an unexpected reply');
  return reply.map((value) => Number(value));
}

/** A bucket right after this process's last granted take or observe: window end, tokens left, learned limit (-1: none). */
interface Seen {
  readonly we: number;
  readonly rem: number;
  readonly lim: number;
}

function rateLimitKey(space: KeySpace, key: string): string {
  return `${space.base(key)}:ratelimit:${key}`;
}

/**
 * Forgets a business's bucket, its block included (`callsync resume`): the next request starts a
 * fresh window, and a server still refusing blocks it again by its own (capped) wait.
 */
export async function clearRateLimitBlock(redis: RedisClient, keys: KeySpace | string, key: string): Promise<void> {
  await redis.del(rateLimitKey(asKeySpace(keys), key));
}

/**
 * The shared limiter for `run`: one Redis hash per bucket, changed only by one atomic Lua script per
 * operation on Redis's clock, so every worker replica and every key of a business draw from one
 * budget. Keys expire once idle past their window.
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const scripts = defineScripts(options.redis);
  const guard = options.guardMs ?? DEFAULT_GUARD_MS;
  const maxWait = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const space = options.keys ?? asKeySpace(options.prefix);
  const keyOf = (key: string): string => rateLimitKey(space, key);
  const seen = new Map<string, Seen>();
  // Sent only when given, as the scripts' last argument: a deployment's calls stay as they were.
  const given = options.now;
  const clock = given === undefined ? (): readonly number[] => NO_CLOCK : (): readonly number[] => [Math.round(given())];
  const readClock = given ?? Date.now;

  const takeUpTo = async (key: string, config: BucketConfig, max: number): Promise<TokensTaken> => {
    const asked = readClock();
    const reply = await scripts.callsyncRateLimitTake(keyOf(key), config.limit, config.windowMs, guard, maxWait, Math.max(1, Math.floor(max)), ...clock());
    const [tokens = 0, waitMs = 0, we, rem, lim, grantedWithinMs] = integers(reply, 2, 6);
    if (tokens < 1 || we === undefined || rem === undefined || lim === undefined || grantedWithinMs === undefined)
      return { tokens: 0, waitMs, spendWithinMs: 0 };
    seen.set(key, { we, rem, lim });
    // Redis granted them somewhere in the round trip: counted from its start, they are spent in time.
    // A reply read only after that (this process not scheduled, a stalled loop) grants nothing
    // usable; the caller asks again, and the window's guard tells it to wait for the next one.
    const spendWithinMs = grantedWithinMs - (readClock() - asked);
    if (spendWithinMs <= 0) return { tokens: 0, waitMs: 0, spendWithinMs: 0 };
    return { tokens, waitMs: 0, spendWithinMs };
  };

  return {
    async take(key: string, config: BucketConfig): Promise<TakeResult> {
      const { tokens, waitMs } = await takeUpTo(key, config, 1);
      return tokens > 0 ? { granted: true } : { granted: false, waitMs };
    },
    takeUpTo,
    async observe(key: string, info: RateLimitInfo, config: BucketConfig): Promise<void> {
      // The usual answer repeats what our own take left: same limit, same window, no fewer tokens
      // than we saw. The script never raises tokens within a window, so it would change nothing;
      // whatever other replicas took since only lowered the stored count below what we saw.
      const last = seen.get(key);
      if (last !== undefined && Math.round(info.limit) === last.lim && Math.round(info.resetAtMs) === last.we && Math.round(info.remaining) >= last.rem) return;
      seen.delete(key);
      const reply = await scripts.callsyncRateLimitObserve(
        keyOf(key),
        config.limit,
        config.windowMs,
        guard,
        Math.round(info.limit),
        Math.round(info.remaining),
        Math.round(info.resetAtMs),
        maxWait,
        ...clock(),
      );
      // Kept as the last view, as after a take: the job's next response from the same window then
      // sends nothing, and its status reads the budget without an inspect round trip.
      const [we, rem, lim, blockedUntil] = integers(reply, 4);
      if (we !== undefined && rem !== undefined && lim !== undefined && blockedUntil === 0) seen.set(key, { we, rem, lim });
    },
    async block(key: string, untilMs: number): Promise<void> {
      seen.delete(key);
      await scripts.callsyncRateLimitBlock(keyOf(key), Math.round(untilMs), guard, maxWait, ...clock());
    },
    async inspect(key: string, config: BucketConfig): Promise<BucketView> {
      const reply = await scripts.callsyncRateLimitInspect(keyOf(key), config.limit, config.windowMs, guard, maxWait, ...clock());
      const [limit = 0, remaining = 0, resetAtMs = 0, blockedUntilMs = 0, now = 0] = integers(reply, 5);
      return {
        limit,
        remaining,
        resetAtMs,
        blockedUntilMs: blockedUntilMs > now ? blockedUntilMs : null,
        usedThisWindow: Math.max(0, limit - remaining),
      };
    },
    peek(key: string, config: BucketConfig): BucketView | undefined {
      const last = seen.get(key);
      if (last === undefined || last.we <= readClock()) return undefined;
      const limit = last.lim > 0 ? last.lim : config.limit;
      return { limit, remaining: last.rem, resetAtMs: last.we, blockedUntilMs: null, usedThisWindow: Math.max(0, limit - last.rem) };
    },
    close(): Promise<void> {
      seen.clear();
      return Promise.resolve();
    },
  };
}
