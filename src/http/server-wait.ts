import { headerValue, type HeaderBag } from './headers.js';

/** The server's view of one rate-limit window, from a response's `X-RateLimit-*` headers. */
export interface RateLimitInfo {
  /** Requests allowed per window (`X-RateLimit-Limit`). */
  readonly limit: number;
  /** Requests left in the current window (`X-RateLimit-Remaining`). */
  readonly remaining: number;
  /** When the current window resets, epoch milliseconds (`X-RateLimit-Reset` × 1000). */
  readonly resetAtMs: number;
}

/** Longest wait a server can impose by default (`upstream.maxWaitMs`). */
export const DEFAULT_MAX_WAIT_MS = 15 * 60_000;

function nonNegative(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const parsed = Number(value.trim());
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
}

/**
 * `Retry-After` as ms from `now`: delta seconds (a fraction is accepted: sub-second test windows
 * send one) or an HTTP date (a past date is 0). `undefined` when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  const seconds = nonNegative(text);
  if (seconds !== undefined) return Math.round(seconds * 1000);
  // Date.parse reads bare numbers such as "-1" as years; an HTTP date always names its month.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Reads `X-RateLimit-Limit`, `-Remaining` and `-Reset`. Reset is unix seconds, possibly with a
 * fraction (`1763782967.250`); a value below 10^9 is taken as seconds from `now` (some deployments
 * send a delta). Returns `undefined` unless all three are present and numeric.
 */
export function parseRateLimitHeaders(headers: HeaderBag | undefined, now: number): RateLimitInfo | undefined {
  const limit = nonNegative(headerValue(headers, 'x-ratelimit-limit'));
  const remaining = nonNegative(headerValue(headers, 'x-ratelimit-remaining'));
  const reset = nonNegative(headerValue(headers, 'x-ratelimit-reset'));
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  const resetAtMs = reset < 1e9 ? now + Math.round(reset * 1000) : Math.round(reset * 1000);
  return { limit: Math.floor(limit), remaining: Math.floor(remaining), resetAtMs };
}

/** A wait after the cap: `askedMs` is set when the server asked for more than `maxWaitMs`. */
interface CappedWait {
  readonly waitMs: number;
  readonly askedMs?: number;
}

/** A server-named wait that was longer than `maxWaitMs` and was cut to it: what a warning names. */
export interface CappedWaitNote {
  /** What the server asked for, ms. */
  readonly askedMs: number;
  /** What is waited instead (`maxWaitMs`). */
  readonly waitMs: number;
  /** `Retry-After`, `X-RateLimit-Reset`, … */
  readonly source: string;
}

/** Cuts a server-named wait to `maxWaitMs`: no answer of a server may stop callsync for longer. */
export function capWait(waitMs: number, maxWaitMs: number): CappedWait {
  const wait = Math.max(0, waitMs);
  return wait > maxWaitMs ? { waitMs: maxWaitMs, askedMs: wait } : { waitMs: wait };
}

/** The rate-limit view with its reset no further than `maxWaitMs` from `now`. */
export function capRateLimitInfo(info: RateLimitInfo, now: number, maxWaitMs: number): RateLimitInfo {
  return info.resetAtMs - now > maxWaitMs ? { ...info, resetAtMs: now + maxWaitMs } : info;
}
