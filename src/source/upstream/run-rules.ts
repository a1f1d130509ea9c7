import type { BucketConfig, RateLimiter } from '../ratelimit/index.js';
import type { FetchEvent, RequestRules, UpstreamRetry } from './client.js';

export interface RunRulesOptions {
  /** The business: its name (the bucket key) and its budget, undefined when client-side limiting is off. */
  readonly plan: { readonly name: string; readonly bucket: BucketConfig | undefined };
  /** The run's limiter: in memory for a one-shot command, Redis (or a job's pocket of it) in `run`. */
  readonly limiter: RateLimiter;
  readonly retry: UpstreamRetry;
  /** Longest wait for budget done in place; longer waits throw `BudgetWaitError` (queue workers). */
  readonly maxBudgetWaitMs: number;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: FetchEvent) => void;
}

/**
 * The rules every request of one business's run follows: its budget in the run's limiter (none
 * counted when the business's limiting is off, though a 429 still waits), the retry policy, the
 * stop and the watcher.
 */
export function runRules(options: RunRulesOptions): RequestRules {
  const { plan } = options;
  return {
    budget: {
      key: plan.name,
      maxWaitMs: options.maxBudgetWaitMs,
      ...(plan.bucket === undefined ? {} : { limiter: options.limiter, bucket: plan.bucket }),
    },
    retry: options.retry,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
  };
}
