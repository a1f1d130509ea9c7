import type { RateLimitInfo } from '../ratelimit/index.js';

/** Response headers as undici gives them (lower-case names); a `Headers` object works too. */
export type HeaderBag = Record<string, string | string[] | undefined> | Headers;

/** One header's value, case-insensitively; the first of repeated values. */
export function headerValue(headers: HeaderBag | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const lower = name.toLowerCase();
  const value = headers[lower] ?? Object.entries(headers).find(([k]) => k.toLowerCase() === lower)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function number(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const parsed = Number(value.trim());
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
}

/**
 * Reads `X-RateLimit-Limit`, `-Remaining` and `-Reset`. Reset is unix seconds, possibly with a
 * fraction (`1763782967.250`); a value below 10^9 is taken as seconds from `now` (some deployments
 * send a delta). Returns `undefined` unless all three are present and numeric.
 */
export function parseRateLimitHeaders(headers: HeaderBag | undefined, now = Date.now()): RateLimitInfo | undefined {
  const limit = number(headerValue(headers, 'x-ratelimit-limit'));
  const remaining = number(headerValue(headers, 'x-ratelimit-remaining'));
  const reset = number(headerValue(headers, 'x-ratelimit-reset'));
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  const resetAtMs = reset < 1e9 ? now + Math.round(reset * 1000) : Math.round(reset * 1000);
  return { limit: Math.floor(limit), remaining: Math.floor(remaining), resetAtMs };
}

/** `Retry-After` as ms from `now`: delta seconds or an HTTP date; `undefined` when absent or unreadable. */
export function parseRetryAfter(headers: HeaderBag | undefined, now = Date.now()): number | undefined {
  const value = headerValue(headers, 'retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  const seconds = number(value);
  if (seconds !== undefined) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
