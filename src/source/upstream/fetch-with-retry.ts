import type { BucketConfig, RateLimiter } from '../ratelimit/index.js';
import { abortableSleep, backoffDelayMs } from '../../http/index.js';
import type { ExchangeDecision, Sleep } from '../../http/index.js';
import type { QueryParams, UpstreamApi, UpstreamAttempt, UpstreamClient, UpstreamResponse } from './client.js';
import { BudgetWaitError } from './errors.js';
import type { UpstreamErrorKind } from './errors.js';
import type { JsonObject } from '../../base/json.js';

export interface RetryPolicy {
  /** Attempts in all for transient failures (first try included). */
  readonly maxAttempts: number;
  /** Backoff ceiling of the first retry, ms. */
  readonly baseDelayMs: number;
  /** Largest backoff ceiling, ms. */
  readonly maxDelayMs: number;
  /** 429s survived before giving up; they do not use up `maxAttempts`. @defaultValue 30 */
  readonly maxRateLimited?: number;
}

/** What one page fetch went through, for progress, metrics and logs. */
export type FetchEvent =
  | { readonly type: 'response'; readonly api: UpstreamApi; readonly path: string; readonly status?: number; readonly code?: string; readonly ms: number }
  | { readonly type: 'retry'; readonly kind: UpstreamErrorKind; readonly reason: string; readonly waitMs: number; readonly attempt: number }
  | { readonly type: 'budget-wait'; readonly bucketKey: string; readonly waitMs: number }
  /** The server asked for a wait longer than `upstream.maxWaitMs`; callsync waits the cap instead. Log it as a warning. */
  | {
      readonly type: 'wait-capped';
      readonly api: UpstreamApi;
      readonly path: string;
      readonly source: string;
      readonly askedMs: number;
      readonly waitMs: number;
    };

/** The one warning line for a cut wait; the caller adds which business and stream. */
export function waitCappedMessage(event: Extract<FetchEvent, { type: 'wait-capped' }>): string {
  return `GET ${event.path} (${event.api}): the server asked to wait ${Math.round(event.askedMs / 1000)} s (${event.source}); waiting upstream.maxWaitMs (${Math.round(event.waitMs / 1000)} s) instead`;
}

export interface FetchWithRetryOptions {
  readonly client: UpstreamClient;
  readonly api: UpstreamApi;
  readonly path: string;
  readonly query?: QueryParams;
  readonly limiter: RateLimiter;
  /** The business's bucket; all its keys and replicas share it. */
  readonly bucketKey: string;
  readonly bucket: BucketConfig;
  readonly retry: RetryPolicy;
  /** Longest wait for budget done in place; a longer one throws `BudgetWaitError`. `Infinity` in backfill. */
  readonly maxBudgetWaitMs: number;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: FetchEvent) => void;
  /** @defaultValue an abortable timer */
  readonly sleep?: Sleep;
  /** @defaultValue `Date.now` */
  readonly now?: () => number;
  /** Jitter source. @defaultValue `Math.random` */
  readonly random?: () => number;
}

/**
 * Fetches one page through the client's one exchange (`send()`), bringing upstream's budget and
 * retry rules: takes a token before every attempt (unless the auth is not counted), waits for
 * budget up to `maxBudgetWaitMs`, feeds every response's rate-limit headers back, blocks the bucket
 * on 429 and retries, retries transient failures with full-jitter backoff, and throws auth /
 * forbidden / invalid failures at once. Each failure is judged by the one classification the client
 * made of it, with the configured policy.
 * @throws UpstreamError when the failure is final; BudgetWaitError when the budget wait is too long.
 */
export async function fetchWithRetry(options: FetchWithRetryOptions): Promise<UpstreamResponse> {
  const { client, api, path, limiter, bucketKey, bucket, retry, signal } = options;
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  const emit = options.onEvent ?? (() => undefined);
  const counted = client.countsAgainstRateLimit[api];
  const maxRateLimited = retry.maxRateLimited ?? 30;
  let transientFailures = 0;
  let rateLimited = 0;
  let started = now();

  const waitInPlace = async (waitMs: number): Promise<void> => {
    if (waitMs > options.maxBudgetWaitMs) throw new BudgetWaitError(waitMs, bucketKey);
    emit({ type: 'budget-wait', bucketKey, waitMs });
    await sleep(waitMs, signal);
  };

  // Waits (in place, or as BudgetWaitError) until the bucket grants a token.
  const takeToken = async (): Promise<void> => {
    const token = await limiter.take(bucketKey, bucket);
    if (token.granted) return;
    await waitInPlace(token.waitMs);
    signal?.throwIfAborted();
    return takeToken();
  };

  const settle = async (attempt: UpstreamAttempt): Promise<ExchangeDecision<UpstreamResponse>> => {
    if ('response' in attempt) {
      const { response } = attempt;
      emit({ type: 'response', api, path, status: response.status, ms: now() - started });
      if (response.waitCapped) emit({ type: 'wait-capped', api, path, ...response.waitCapped });
      // Not awaited: a correction only ever lowers the budget or moves the window on, so it may land
      // after the next take; waiting for it would add a Redis round trip to every page.
      if (counted && response.rateLimit) limiter.observe(bucketKey, response.rateLimit, bucket).catch(() => undefined);
      return { action: 'accept', value: response };
    }
    const { error, classification } = attempt;
    emit({ type: 'response', api, path, ...(error.status === undefined ? {} : { status: error.status }), code: error.code, ms: now() - started });
    if (error.waitCapped) emit({ type: 'wait-capped', api, path, ...error.waitCapped });
    if (counted && error.rateLimit) await limiter.observe(bucketKey, error.rateLimit, bucket);
    signal?.throwIfAborted();
    if (!classification.retry) return { action: 'fail', error };
    const reason = `${error.code}${error.status === undefined ? '' : ` (HTTP ${error.status})`}`;
    if (classification.kind === 'rate_limited') {
      rateLimited += 1;
      if (rateLimited > maxRateLimited) return { action: 'fail', error };
      const waitMs = classification.waitMs ?? 0;
      emit({ type: 'retry', kind: classification.kind, reason, waitMs, attempt: rateLimited });
      // The limiter now holds the wait: the next take reports it (in place or as BudgetWaitError).
      if (counted) await limiter.block(bucketKey, now() + waitMs);
      else await waitInPlace(waitMs);
      return { action: 'retry', waitMs: undefined };
    }
    transientFailures += 1;
    if (transientFailures >= retry.maxAttempts) return { action: 'fail', error };
    const waitMs = Math.max(backoffDelayMs(transientFailures, retry, options.random), classification.waitMs ?? 0);
    emit({ type: 'retry', kind: classification.kind, reason, waitMs, attempt: transientFailures });
    return { action: 'retry', waitMs };
  };

  return client.get(api, path, options.query, {
    signal,
    sleep,
    settle,
    acquire: async () => {
      if (counted) await takeToken();
      started = now();
    },
  });
}

// The engine's fetch, bound to one business

/** What `upstreamFetch` needs of a business: its name (the bucket key) and its budget. */
export interface FetchPlan {
  readonly name: string;
  /** The business's request budget; undefined when client-side limiting is off. */
  readonly bucket: BucketConfig | undefined;
}

/** Where a page is fetched from: an interface and a path under it (a stream descriptor is one). */
export interface FetchTarget {
  readonly api: UpstreamApi;
  readonly path: string;
}

/** The engine's fetch: one page's payload of a target, budget, retries and auth behind it. */
export type FetchPage = (target: FetchTarget, query: QueryParams) => Promise<JsonObject>;

export interface UpstreamFetchOptions {
  readonly plan: FetchPlan;
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
export function upstreamFetch(options: UpstreamFetchOptions): FetchPage {
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
