import type { Budget } from '../../http/index.js';
import { capRateLimitInfo, parseRateLimitHeaders } from '../../http/index.js';
import type { BucketConfig, RateLimiter } from './types.js';

interface BucketBudgetOptions {
  readonly limiter: RateLimiter;
  /** The bucket's key: the business's name. */
  readonly key: string;
  readonly bucket: BucketConfig;
  /**
   * How a wait for the next token is spent: slept in place, or refused by throwing (a run's job
   * may not hold its slot for a long wait). Called again after each wait until a token is granted.
   */
  readonly wait: (waitMs: number) => Promise<void>;
  /** Longest reset an answer's `X-RateLimit-Reset` may set (`upstream.maxWaitMs`). */
  readonly maxWaitMs: number;
  /** @defaultValue `Date.now` */
  readonly now?: () => number;
}

/**
 * The upstream limiter seen as the budget every service's client spends (`src/http/budget.ts`):
 * `acquire` takes one token of the business's bucket, waiting as `wait` says between tries;
 * `settle` corrects the bucket from the answer's `X-RateLimit-*` headers, the reset cut to
 * `maxWaitMs` like any server-named wait; its promise resolves once the limiter has them (a Redis
 * round trip: the page path need not wait for it). A 429's block stays the caller's (`limiter.block`).
 */
export function bucketBudget(options: BucketBudgetOptions): Budget<Promise<void>> {
  const { limiter, key, bucket, wait, maxWaitMs } = options;
  const now = options.now ?? Date.now;
  return {
    async acquire() {
      for (let token = await limiter.take(key, bucket); !token.granted; token = await limiter.take(key, bucket)) await wait(token.waitMs);
    },
    async settle(head) {
      if (head === undefined) return;
      const at = now();
      const seen = parseRateLimitHeaders(head.headers, at);
      if (seen !== undefined) await limiter.observe(key, capRateLimitInfo(seen, at, maxWaitMs), bucket);
    },
  };
}
