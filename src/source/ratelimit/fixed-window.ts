import type { BucketConfig, BucketView, RateLimitInfo, TakeResult } from './types.js';

/**
 * The fixed-window bucket model, as pure functions over a plain state. The memory limiter runs
 * these directly; the Redis limiter runs the same rules in Lua (`redis-scripts.ts`), and one
 * contract suite holds both to them.
 */
export interface WindowState {
  /** End of the window the tokens belong to, epoch ms; 0 = none yet (the aligned window is assumed). */
  windowEndMs: number;
  /** Tokens left in that window. */
  remaining: number;
  /** `X-RateLimit-Limit` once seen; replaces the configured limit at the next refill. */
  learnedLimit: number | null;
  /** Epoch ms until which a 429 blocks the bucket; 0 when never blocked. */
  blockedUntilMs: number;
  /** The window length last used with this key (`block` has no config of its own). */
  windowMs: number;
}

/**
 * Largest guard around a window boundary that absorbs clock differences and request latency: a
 * request granted just before it may reach the server in the next window. A process on a busy
 * machine can wait tens of milliseconds to be scheduled between a grant and its send, and a server
 * across the internet is further away than that.
 */
export const DEFAULT_GUARD_MS = 100;

/** The guard in force: at most a tenth of the window so short test windows keep their budget. */
export function guardFor(windowMs: number, guardMs = DEFAULT_GUARD_MS): number {
  return Math.max(0, Math.min(guardMs, Math.floor(windowMs / 10)));
}

/**
 * No stored wait outlives `maxWaitMs`: a block, or a window end (beyond two windows, as far as a
 * believable reset goes), further ahead is brought back to it. A server's absurd reset cannot stop a
 * business for good, nor survive a restart.
 */
export function clampState(state: WindowState, now: number, maxWaitMs: number): WindowState {
  const blockLimit = now + maxWaitMs;
  const windowLimit = now + Math.max(maxWaitMs, 2 * state.windowMs);
  if (state.blockedUntilMs <= blockLimit && state.windowEndMs <= windowLimit) return state;
  return { ...state, blockedUntilMs: Math.min(state.blockedUntilMs, blockLimit), windowEndMs: Math.min(state.windowEndMs, windowLimit) };
}

export function emptyState(windowMs: number): WindowState {
  return { windowEndMs: 0, remaining: 0, learnedLimit: null, blockedUntilMs: 0, windowMs };
}

function limitOf(state: WindowState, config: BucketConfig): number {
  return state.learnedLimit ?? config.limit;
}

/** Moves to the window that holds `now` (windows keep the phase of the last known reset) and refills. */
function advance(state: WindowState, config: BucketConfig, now: number, guard: number): WindowState {
  if (now < state.windowEndMs + guard) return { ...state, windowMs: config.windowMs };
  const skipped = Math.floor((now - guard - state.windowEndMs) / config.windowMs) + 1;
  return {
    ...state,
    windowEndMs: state.windowEndMs + skipped * config.windowMs,
    remaining: limitOf(state, config),
    windowMs: config.windowMs,
  };
}

/**
 * Grants a token unless blocked, out of tokens, or within `guard` before the window's end (a request
 * sent then may be counted in the next window, which the model would refill in full).
 */
export function takeToken(state: WindowState, config: BucketConfig, now: number, guard: number): { state: WindowState; result: TakeResult } {
  const { state: next, tokens, waitMs } = takeTokens(state, config, now, guard, 1);
  return { state: next, result: tokens > 0 ? { granted: true } : { granted: false, waitMs } };
}

/** As {@link takeToken}, up to `max` tokens at once: as many as the window has left, at least one or none. */
export function takeTokens(
  state: WindowState,
  config: BucketConfig,
  now: number,
  guard: number,
  max: number,
): { state: WindowState; tokens: number; waitMs: number } {
  if (state.blockedUntilMs > now) return { state, tokens: 0, waitMs: state.blockedUntilMs - now };
  const current = advance(state, config, now, guard);
  if (current.remaining <= 0 || now >= current.windowEndMs - guard) {
    return { state: current, tokens: 0, waitMs: current.windowEndMs + guard - now };
  }
  const tokens = Math.min(Math.max(1, max), current.remaining);
  return { state: { ...current, remaining: current.remaining - tokens }, tokens, waitMs: 0 };
}

/** Applies a response's headers; see {@link RateLimiter.observe}. */
export function observeInfo(state: WindowState, info: RateLimitInfo, config: BucketConfig, now: number, guard: number): WindowState {
  const learned = info.limit > 0 ? { ...state, learnedLimit: info.limit } : state;
  const current = advance(learned, config, now, guard);
  // A reset already past belongs to a window the model has left: it says nothing about this one.
  if (now >= info.resetAtMs + guard) return current;
  const tolerance = config.windowMs / 2;
  if (info.resetAtMs > current.windowEndMs + tolerance) {
    return { ...current, windowEndMs: info.resetAtMs, remaining: Math.max(0, info.remaining) };
  }
  if (info.resetAtMs >= current.windowEndMs - tolerance) {
    return {
      ...current,
      windowEndMs: info.resetAtMs,
      remaining: Math.max(0, Math.min(current.remaining, info.remaining)),
    };
  }
  return current;
}

/** After a 429 the server's current window is spent: no tokens in it, none at all until `untilMs`. */
export function blockUntil(state: WindowState, untilMs: number, now: number, guard: number): WindowState {
  const current = state.windowEndMs > 0 ? advance(state, { limit: 0, windowMs: state.windowMs }, now, guard) : state;
  return { ...current, remaining: 0, blockedUntilMs: Math.max(current.blockedUntilMs, untilMs) };
}

export function viewOf(state: WindowState, config: BucketConfig, now: number, guard: number): BucketView {
  const current = advance(state, config, now, guard);
  const limit = limitOf(current, config);
  return {
    limit,
    remaining: current.remaining,
    resetAtMs: current.windowEndMs,
    blockedUntilMs: current.blockedUntilMs > now ? current.blockedUntilMs : null,
    usedThisWindow: Math.max(0, limit - current.remaining),
  };
}
