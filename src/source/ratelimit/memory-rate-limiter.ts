import { DEFAULT_MAX_WAIT_MS } from '../../http/server-wait.js';
import { blockUntil, clampState, emptyState, guardFor, observeInfo, takeToken, takeTokens, viewOf } from './fixed-window.js';
import type { WindowState } from './fixed-window.js';
import type { BucketConfig, BucketView, RateLimiter, RateLimitInfo, TakeResult, TokensTaken } from './types.js';

interface MemoryRateLimiterOptions {
  /** Clock in epoch ms. @defaultValue `Date.now` */
  readonly now?: () => number;
  /** Guard around window boundaries, capped at a tenth of the window. @defaultValue 25 */
  readonly guardMs?: number;
  /** Longest block or window end kept (`upstream.maxWaitMs`). @defaultValue 15 min */
  readonly maxWaitMs?: number;
}

/**
 * The in-process limiter for one process (`backfill`): the fixed-window model of `fixed-window.ts`
 * over a Map. Every call runs synchronously to completion, so takes are atomic within the process.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions | (() => number) = {}): RateLimiter {
  const opts = typeof options === 'function' ? { now: options } : options;
  const now = opts.now ?? Date.now;
  const buckets = new Map<string, WindowState>();
  const maxWaitMs = opts.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const stateOf = (key: string, windowMs: number): WindowState => clampState(buckets.get(key) ?? emptyState(windowMs), now(), maxWaitMs);
  const store = (key: string, state: WindowState): void => {
    buckets.set(key, clampState(state, now(), maxWaitMs));
  };
  const guard = (windowMs: number): number => guardFor(windowMs, opts.guardMs);

  return {
    take(key: string, config: BucketConfig): Promise<TakeResult> {
      const { state, result } = takeToken(stateOf(key, config.windowMs), config, now(), guard(config.windowMs));
      store(key, state);
      return Promise.resolve(result);
    },
    takeUpTo(key: string, config: BucketConfig, max: number): Promise<TokensTaken> {
      const { state, tokens, waitMs } = takeTokens(stateOf(key, config.windowMs), config, now(), guard(config.windowMs), max);
      store(key, state);
      return Promise.resolve({ tokens, waitMs, spendWithinMs: tokens > 0 ? state.windowEndMs - guard(config.windowMs) - now() : 0 });
    },
    observe(key: string, info: RateLimitInfo, config: BucketConfig): Promise<void> {
      store(key, observeInfo(stateOf(key, config.windowMs), info, config, now(), guard(config.windowMs)));
      return Promise.resolve();
    },
    block(key: string, untilMs: number): Promise<void> {
      const state = buckets.get(key);
      const windowMs = state?.windowMs ?? 0;
      store(key, blockUntil(stateOf(key, windowMs), untilMs, now(), guard(windowMs)));
      return Promise.resolve();
    },
    inspect(key: string, config: BucketConfig): Promise<BucketView> {
      return Promise.resolve(viewOf(stateOf(key, config.windowMs), config, now(), guard(config.windowMs)));
    },
    close(): Promise<void> {
      buckets.clear();
      return Promise.resolve();
    },
  };
}
