import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

const RENEW_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
export const RELEASE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/** A held lock; renewed in the background until released. */
export interface StreamLock {
  /** Deletes the lock if this holder still owns it. Safe to call twice. */
  release(): Promise<void>;
}

export interface AcquireOptions {
  readonly redis: Redis;
  readonly key: string;
  /** Expiry; renewed every third of it, so a killed holder frees the lock within `ttlMs`. */
  readonly ttlMs: number;
  /** Called once when a renewal finds the lock gone or taken (e.g. the process froze past `ttlMs`). */
  readonly onLost: () => void;
  /** The value stored; unique per holder. @defaultValue a random UUID */
  readonly token?: string;
}

/**
 * One holder per key across every replica: `SET NX PX` with a random token, renewed and released
 * only by the holder (compare-and-set scripts), so a holder that lost its lock never frees
 * another's. BullMQ's own job lock cannot give this: a job scheduler adds the next run while the
 * current one is still active when a run takes longer than the interval.
 * @returns undefined when another holder has it.
 */
export async function acquireStreamLock(options: AcquireOptions): Promise<StreamLock | undefined> {
  const { redis, key, ttlMs } = options;
  const token = options.token ?? randomUUID();
  const set = await redis.set(key, token, 'PX', ttlMs, 'NX');
  if (set !== 'OK') return undefined;
  let released = false;
  const timer = setInterval(() => {
    redis
      .eval(RENEW_LUA, 1, key, token, ttlMs)
      .then((renewed) => {
        if (renewed !== 1 && !released) {
          clearInterval(timer);
          options.onLost();
        }
      })
      // A failed renewal is retried at the next tick; the lock survives until ttlMs.
      .catch(() => undefined);
  }, Math.max(100, Math.floor(ttlMs / 3)));
  timer.unref();
  return {
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await redis.eval(RELEASE_LUA, 1, key, token);
    },
  };
}
