import type { WebhookRetryConfig } from './config.js';

/**
 * Full-jitter exponential backoff: a uniform wait in [0, min(maxDelayMs, baseDelayMs · 2^(retry-1))),
 * so many workers retrying one receiver spread out instead of arriving together.
 * @param retry 1 for the first retry.
 * @param random a number in [0, 1); injected so tests are deterministic.
 */
export function fullJitterDelay(retry: number, policy: WebhookRetryConfig, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}
