import type { RateLimitOptions } from './types.js';

interface Admission {
  admitted: boolean;
  /** X-RateLimit-* headers; empty when rate limiting is off. */
  headers: Record<string, string>;
  /** Start of the fixed window the request fell in. */
  windowStartMs: number;
  /** Whole seconds until the window resets, at least 1 (for a 429). */
  retryAfterSec: number;
}

/** Window used for counters when rate limiting is off. */
const COUNTING_WINDOW_MS = 60_000;

/**
 * Reset as unix seconds: whole seconds for windows of a minute or more in whole seconds,
 * otherwise with millisecond precision (`1763782967.250`), so short test windows stay exact.
 */
export function formatReset(resetMs: number, windowMs: number): string {
  const whole = windowMs >= 60_000 && windowMs % 1000 === 0;
  return whole ? String(Math.floor(resetMs / 1000)) : (resetMs / 1000).toFixed(3);
}

export function describeWindow(windowMs: number): string {
  if (windowMs === 60_000) return 'minute';
  if (windowMs === 1000) return 'second';
  return windowMs % 1000 === 0 ? `${windowMs / 1000} seconds` : `${windowMs} ms`;
}

/**
 * One fixed-window bucket per business, windows aligned to multiples of `windowMs` since the
 * epoch and shared by every key (and v2 token) of the business. A refused request uses no budget.
 */
export class FixedWindowLimiter {
  #config: RateLimitOptions | false;
  readonly #used = new Map<string, { startMs: number; used: number }>();

  constructor(config: RateLimitOptions | false) {
    this.#config = config;
  }

  get config(): RateLimitOptions | false {
    return this.#config;
  }

  set(config: RateLimitOptions | false): void {
    this.#config = config;
    this.#used.clear();
  }

  /** Takes one request from the bucket, or refuses it. `force429` refuses regardless of budget (storm). */
  take(business: string, nowMs: number, force429: boolean): Admission {
    const config = this.#config;
    const windowMs = config === false ? COUNTING_WINDOW_MS : config.windowMs;
    const startMs = Math.floor(nowMs / windowMs) * windowMs;
    const retryAfterSec = Math.max(1, Math.ceil((startMs + windowMs - nowMs) / 1000));
    if (config === false) return { admitted: !force429, headers: {}, windowStartMs: startMs, retryAfterSec };
    let state = this.#used.get(business);
    if (state?.startMs !== startMs) {
      state = { startMs, used: 0 };
      this.#used.set(business, state);
    }
    const admitted = !force429 && state.used < config.limit;
    if (admitted) state.used++;
    const headers = {
      'x-ratelimit-limit': String(config.limit),
      'x-ratelimit-remaining': String(force429 ? 0 : config.limit - state.used),
      'x-ratelimit-reset': formatReset(startMs + windowMs, windowMs),
    };
    return { admitted, headers, windowStartMs: startMs, retryAfterSec };
  }
}
