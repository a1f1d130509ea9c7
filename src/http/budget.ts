import type { ExchangeHead } from './exchange.js';

/**
 * A service's request budget as the one exchange spends it: `acquire` is what `send()` awaits
 * before every attempt, and `settle` hears how that attempt ended. The upstream's limiter (fixed
 * windows, shared through Redis), HubSpot's rolling windows and Salesforce's API allocation each
 * implement it; what a service's refusal for its budget means (a 429, `REQUEST_LIMIT_EXCEEDED`)
 * stays with the service, which knows its own answers.
 *
 * `Settled` is what `settle` returns: nothing for a budget kept in process, a promise for one
 * kept elsewhere (the upstream's Redis), which a caller awaits where order matters.
 */
export interface Budget<Settled extends void | Promise<void> = void> {
  /**
   * Resolves once one more request may go now, and counts it. Rejects instead of waiting when the
   * wait is longer than the caller may hold (the service's error says until when).
   */
  acquire(): Promise<void>;
  /**
   * How the attempt `acquire` let through ended: the answer's status and headers (what a budget
   * learns from), or `undefined` when no answer came.
   */
  settle(head: ExchangeHead | undefined): Settled;
}
