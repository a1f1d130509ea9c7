import type { RateLimitInfo } from '../../http/server-wait.js';

export type { RateLimitInfo } from '../../http/server-wait.js';

/** The budget of one bucket: `limit` requests per fixed window of `windowMs`. */
export interface BucketConfig {
  /** Requests per window; replaced by `X-RateLimit-Limit` once a response has shown it. */
  readonly limit: number;
  /** Window length in milliseconds (60 000 for the documented 60 requests per minute). */
  readonly windowMs: number;
}

/** Answer of {@link RateLimiter.take}. */
export type TakeResult = { readonly granted: true } | { readonly granted: false; readonly waitMs: number };

/** Answer of {@link RateLimiter.takeUpTo}. */
export interface TokensTaken {
  /** Tokens granted, 0 when none. */
  readonly tokens: number;
  /** When none: how long until one is. */
  readonly waitMs: number;
  /** When some: milliseconds from now to spend them in their window (then they are lost). */
  readonly spendWithinMs: number;
}

/** One bucket's state, for status pages and metrics. */
export interface BucketView {
  /** The limit in force: learned from headers, else the configured one. */
  readonly limit: number;
  /** Tokens left in the current window. */
  readonly remaining: number;
  /** When the current window resets, epoch milliseconds. */
  readonly resetAtMs: number;
  /** Epoch milliseconds until which a 429 blocks the bucket; `null` when not blocked. */
  readonly blockedUntilMs: number | null;
  /** Tokens taken (or seen used by the server) in the current window. */
  readonly usedThisWindow: number;
}

/**
 * A per-key request budget that mirrors the upstream's FIXED windows: the tokens are the requests
 * left in the current window, and they refill all at once when the window resets. Before a key has
 * seen a header, windows are assumed aligned to multiples of `windowMs` since the epoch.
 */
export interface RateLimiter {
  /** Takes one token atomically if available; otherwise consumes nothing and says how long until one is. */
  take(key: string, config: BucketConfig): Promise<TakeResult>;
  /**
   * Takes up to `max` tokens at once, atomically: as many as the window has left (a business job
   * takes one per stream it polls in one round trip). Tokens not used in their window are lost,
   * never spent in the next one. Optional: callers fall back to {@link take}.
   */
  takeUpTo?(key: string, config: BucketConfig, max: number): Promise<TokensTaken>;
  /**
   * Corrects the local view from a response's `X-RateLimit-*` headers: never raises remaining
   * within the same window, adopts a later reset (and the remaining of that later window), ignores
   * a response from an earlier window, and learns `limit`.
   */
  observe(key: string, info: RateLimitInfo, config: BucketConfig): Promise<void>;
  /** After a 429: no tokens until `untilMs` (epoch ms), and none left in the current window. */
  block(key: string, untilMs: number): Promise<void>;
  /** Current view for status pages. Changes nothing. */
  inspect(key: string, config: BucketConfig): Promise<BucketView>;
  /**
   * The bucket as this process last saw it (its own last take in the current window), without a
   * round trip; undefined when it has seen none. Other replicas' takes since are not in it: for a
   * status line written at a run's end, where `inspect` would cost a round trip every poll.
   */
  peek?(key: string, config: BucketConfig): BucketView | undefined;
  /** Releases what the limiter owns (not injected clients). Safe to call twice. */
  close(): Promise<void>;
}
