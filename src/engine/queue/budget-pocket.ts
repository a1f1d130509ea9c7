import type { BucketConfig, RateLimiter, TakeResult } from '../../source/ratelimit/index.js';

/**
 * A business job's budget: its first request takes a token for every stream the job will poll
 * in one limiter call (an idle stream needs exactly one request), later requests spend those
 * first and take one at a time once they are gone. Tokens are counted in the shared budget when
 * taken, so replicas never exceed it; those not spent before their window ends are dropped,
 * never used in the next window. Everything else goes to the shared limiter.
 */
export function budgetPocket(limiter: RateLimiter, business: string, streams: number, now: () => number = Date.now): RateLimiter {
  let wanted = streams;
  let tokens = 0;
  let spendBy = 0;
  const take = async (key: string, config: BucketConfig): Promise<TakeResult> => {
    if (key !== business || limiter.takeUpTo === undefined) return limiter.take(key, config);
    if (tokens > 0 && now() < spendBy) {
      tokens -= 1;
      return { granted: true };
    }
    const taken = await limiter.takeUpTo(key, config, Math.max(1, wanted));
    // Only the first take asks for the whole job; a job that needs more has outgrown the guess.
    wanted = 1;
    if (taken.tokens < 1) return { granted: false, waitMs: taken.waitMs };
    tokens = taken.tokens - 1;
    spendBy = now() + taken.spendWithinMs;
    return { granted: true };
  };
  return {
    take,
    observe: (key, info, config) => limiter.observe(key, info, config),
    block: (key, untilMs) => {
      if (key === business) tokens = 0;
      return limiter.block(key, untilMs);
    },
    inspect: (key, config) => limiter.inspect(key, config),
    ...(limiter.peek === undefined ? {} : { peek: limiter.peek.bind(limiter) }),
    close: () => Promise.resolve(),
  };
}
