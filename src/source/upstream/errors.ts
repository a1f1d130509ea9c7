import { HttpError } from '../../http/index.js';
import type { CappedWaitNote, FailureKind } from '../../http/index.js';
import type { RateLimitInfo } from '../ratelimit/index.js';

/** The kinds of the one vocabulary (`FailureKind`) an upstream failure can have: see DESIGN.md "Errors". */
export type UpstreamErrorKind = Extract<FailureKind, 'auth' | 'forbidden' | 'rate_limited' | 'transient' | 'invalid'>;

/** Stable codes of errors callsync raises itself; network failures keep undici's / Node's code. */
export const UpstreamErrorCode = {
  Unauthorized: 'UNAUTHORIZED',
  Forbidden: 'FORBIDDEN',
  RateLimited: 'RATE_LIMITED',
  BadRequest: 'BAD_REQUEST',
  NotFound: 'NOT_FOUND',
  ClientError: 'CLIENT_ERROR',
  ServerError: 'SERVER_ERROR',
  TruncatedBody: 'UND_TRUNCATED_BODY',
  BadJson: 'BAD_JSON',
  BodyTooLarge: 'BODY_TOO_LARGE',
  Timeout: 'UPSTREAM_TIMEOUT',
  LoginFailed: 'LOGIN_FAILED',
  MissingCredentials: 'MISSING_CREDENTIALS',
  Network: 'NETWORK_ERROR',
  RequestTooLarge: 'REQUEST_TOO_LARGE',
} as const;

/** Where a failed request went. `path` never carries the query string. */
export interface RequestContext {
  readonly method: string;
  readonly host: string;
  readonly path: string;
}

export interface UpstreamErrorOptions {
  readonly code: string;
  readonly kind: UpstreamErrorKind;
  readonly request: RequestContext;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly waitCapped?: CappedWaitNote;
  readonly rateLimit?: RateLimitInfo;
  readonly cause?: unknown;
  /** What the operator does about it, when the kind alone does not say. */
  readonly fix?: string;
}

/**
 * A failed upstream request: the exchange's `HttpError` with upstream's own fields. The message
 * holds method, host, path, status and the server's message only: never headers, tokens, cookies,
 * passwords or query strings.
 */
export class UpstreamError extends HttpError<UpstreamErrorKind> {
  override readonly name = 'UpstreamError';
  /** Set when the server asked for a longer wait than `maxWaitMs` (`retryAfterMs` is the cut one). */
  readonly waitCapped?: CappedWaitNote;
  /** The `X-RateLimit-*` view the failed response carried. */
  readonly rateLimit?: RateLimitInfo;
  readonly request: RequestContext;
  /** What the operator does about it (no `fix:` prefix), when the kind alone does not say. */
  readonly fix?: string;

  constructor(message: string, options: UpstreamErrorOptions) {
    super(message, { service: 'upstream', ...options });
    this.request = options.request;
    if (options.fix !== undefined) this.fix = options.fix;
    if (options.waitCapped !== undefined) this.waitCapped = options.waitCapped;
    if (options.rateLimit !== undefined) this.rateLimit = options.rateLimit;
  }
}

/** True for an `UpstreamError`, also across module copies (checks `name` and `kind`). */
export function isUpstreamError(value: unknown): value is UpstreamError {
  return value instanceof UpstreamError || (value instanceof Error && value.name === 'UpstreamError' && typeof (value as { kind?: unknown }).kind === 'string');
}

/**
 * The rate-limit budget would not allow a request within `maxBudgetWaitMs`: a queue worker should
 * delay the job by `waitMs` and free its slot for another business.
 */
export class BudgetWaitError extends Error {
  override readonly name = 'BudgetWaitError';
  readonly code = 'BUDGET_WAIT';
  /** How long until the budget allows the next request, in ms. */
  readonly waitMs: number;

  constructor(waitMs: number, bucketKey: string) {
    super(`rate-limit budget of ${bucketKey} allows the next request in ${Math.ceil(waitMs)} ms`);
    this.waitMs = waitMs;
  }
}

/** True for a `BudgetWaitError`, also across module copies. */
export function isBudgetWaitError(value: unknown): value is BudgetWaitError {
  return value instanceof BudgetWaitError || (value instanceof Error && value.name === 'BudgetWaitError');
}
