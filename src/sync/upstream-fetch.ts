import type { RateLimiter } from '../ratelimit/index.js';
import { fetchWithRetry, type FetchEvent, type RetryPolicy, type UpstreamClient } from '../upstream/index.js';
import type { BusinessPlan } from './business-plan.js';
import type { FetchPayload } from './sync-stream.js';

export interface UpstreamFetchOptions {
  readonly plan: BusinessPlan;
  readonly client: UpstreamClient;
  readonly limiter: RateLimiter;
  readonly retry: RetryPolicy;
  /** Longest wait for budget done in place; longer waits throw `BudgetWaitError` (queue workers). */
  readonly maxBudgetWaitMs: number;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: FetchEvent) => void;
}

const UNLIMITED = { limit: Number.MAX_SAFE_INTEGER, windowMs: 1_000 };

/**
 * With client-side limiting off (benchmarks) nothing is counted, but a 429 still blocks until
 * its retry time: turning the budget off must not turn a server's "wait" into a retry storm.
 */
function blockOnlyLimiter(): RateLimiter {
  const blockedUntil = new Map<string, number>();
  return {
    take: (key) => {
      const waitMs = (blockedUntil.get(key) ?? 0) - Date.now();
      return Promise.resolve(waitMs > 0 ? { granted: false, waitMs } : { granted: true });
    },
    observe: () => Promise.resolve(),
    block: (key, untilMs) => {
      blockedUntil.set(key, untilMs);
      return Promise.resolve();
    },
    inspect: (key) =>
      Promise.resolve({ limit: UNLIMITED.limit, remaining: UNLIMITED.limit, resetAtMs: 0, blockedUntilMs: blockedUntil.get(key) ?? null, usedThisWindow: 0 }),
    close: () => Promise.resolve(),
  };
}

/** Binds the upstream client, the business's budget and the retry policy into the engine's fetch. */
export function upstreamFetch(options: UpstreamFetchOptions): FetchPayload {
  const { plan } = options;
  const limiter = plan.bucket === undefined ? blockOnlyLimiter() : options.limiter;
  return async (descriptor, query) => {
    const response = await fetchWithRetry({
      client: options.client,
      api: descriptor.api,
      path: descriptor.path,
      query,
      limiter,
      bucketKey: plan.name,
      bucket: plan.bucket ?? UNLIMITED,
      retry: options.retry,
      maxBudgetWaitMs: options.maxBudgetWaitMs,
      signal: options.signal,
      onEvent: options.onEvent,
    });
    return response.payload;
  };
}
