/** Exponential backoff bounds for transient failures. */
export interface BackoffOptions {
  /** Ceiling of the first retry's delay, ms. */
  readonly baseDelayMs: number;
  /** No delay ceiling grows beyond this, ms. */
  readonly maxDelayMs: number;
}

/**
 * "Full jitter": a uniform delay in [0, min(maxDelayMs, baseDelayMs × 2^(attempt−1))), so that
 * replicas retrying after one shared outage spread out. `attempt` counts retries from 1.
 */
export function backoffDelayMs(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const exponent = Math.min(60, Math.max(0, Math.floor(attempt) - 1));
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** exponent);
  return Math.floor(random() * Math.max(0, ceiling));
}
