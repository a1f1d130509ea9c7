import type { Redis } from 'ioredis';
import { DEFAULT_GUARD_MS } from './fixed-window.js';
import { BLOCK_LUA, INSPECT_LUA, OBSERVE_LUA, TAKE_LUA } from './redis-scripts.js';
import type { BucketConfig, BucketView, RateLimiter, RateLimitInfo, TakeResult } from './types.js';

export interface RedisRateLimiterOptions {
  /** A connection owned by the caller; `close()` leaves it open. */
  readonly redis: Redis;
  /** Namespace of this deployment's keys; the bucket of `key` lives at `${prefix}:ratelimit:${key}`. */
  readonly prefix: string;
  /** Guard around window boundaries, capped at a tenth of the window. @defaultValue 25 */
  readonly guardMs?: number;
}

type Script = (key: string, ...args: (string | number)[]) => Promise<unknown>;

interface LimiterScripts {
  callsyncRateLimitTake: Script;
  callsyncRateLimitObserve: Script;
  callsyncRateLimitBlock: Script;
  callsyncRateLimitInspect: Script;
}

function defineScripts(redis: Redis): LimiterScripts {
  // defineCommand sends EVALSHA (EVAL once if the script cache lacks it): one round trip a call.
  redis.defineCommand('callsyncRateLimitTake', { numberOfKeys: 1, lua: TAKE_LUA });
  redis.defineCommand('callsyncRateLimitObserve', { numberOfKeys: 1, lua: OBSERVE_LUA });
  redis.defineCommand('callsyncRateLimitBlock', { numberOfKeys: 1, lua: BLOCK_LUA });
  redis.defineCommand('callsyncRateLimitInspect', { numberOfKeys: 1, lua: INSPECT_LUA, readOnly: true });
  return redis as unknown as LimiterScripts;
}

function integers(reply: unknown, length: number): number[] {
  if (!Array.isArray(reply) || reply.length !== length) throw new Error('rate limiter script returned an unexpected reply');
  return reply.map((value) => Number(value));
}

/**
 * The shared limiter for `run`: one Redis hash per bucket, changed only by one atomic Lua script per
 * operation on Redis's clock, so every worker replica and every key of a business draw from one
 * budget. Keys expire once idle past their window.
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const scripts = defineScripts(options.redis);
  const guard = options.guardMs ?? DEFAULT_GUARD_MS;
  const keyOf = (key: string): string => `${options.prefix}:ratelimit:${key}`;

  return {
    async take(key: string, config: BucketConfig): Promise<TakeResult> {
      const reply = await scripts.callsyncRateLimitTake(keyOf(key), config.limit, config.windowMs, guard);
      const [granted, waitMs] = integers(reply, 2);
      return granted === 1 ? { granted: true } : { granted: false, waitMs: waitMs ?? 0 };
    },
    async observe(key: string, info: RateLimitInfo, config: BucketConfig): Promise<void> {
      await scripts.callsyncRateLimitObserve(
        keyOf(key),
        config.limit,
        config.windowMs,
        guard,
        Math.round(info.limit),
        Math.round(info.remaining),
        Math.round(info.resetAtMs),
      );
    },
    async block(key: string, untilMs: number): Promise<void> {
      await scripts.callsyncRateLimitBlock(keyOf(key), Math.round(untilMs), guard);
    },
    async inspect(key: string, config: BucketConfig): Promise<BucketView> {
      const reply = await scripts.callsyncRateLimitInspect(keyOf(key), config.limit, config.windowMs, guard);
      const [limit = 0, remaining = 0, resetAtMs = 0, blockedUntilMs = 0, now = 0] = integers(reply, 5);
      return {
        limit,
        remaining,
        resetAtMs,
        blockedUntilMs: blockedUntilMs > now ? blockedUntilMs : null,
        usedThisWindow: Math.max(0, limit - remaining),
      };
    },
    close(): Promise<void> {
      return Promise.resolve();
    },
  };
}
