import { parseErrorBody } from './envelopes.js';
import { isUpstreamError, UpstreamErrorCode } from './errors.js';
import type { UpstreamErrorKind } from './errors.js';
import { parseRateLimitHeaders, parseRetryAfter } from './rate-limit-headers.js';
import type { HeaderBag } from './rate-limit-headers.js';

/** A non-2xx answer, before it becomes an error. */
export interface HttpFailure {
  readonly status: number;
  readonly headers?: HeaderBag;
  /** Parsed JSON, or the text when it was not JSON. */
  readonly body?: unknown;
}

/** A 2xx answer whose body could not be used. */
export interface BodyFailure {
  readonly status: number;
  readonly bodyProblem: 'truncated' | 'bad_json';
}

/** What to do about one failure. */
export interface Classification {
  readonly kind: UpstreamErrorKind;
  readonly retry: boolean;
  /** How long to wait before the retry, when the server said (429, Retry-After on 5xx). */
  readonly waitMs?: number;
  /** Short human-readable cause, free of secrets. */
  readonly reason: string;
  /** Stable code for an `UpstreamError` built from this failure. */
  readonly code: string;
}

/** Wait after a 429 that names no wait at all: one documented window. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;

const TRANSIENT_CODES = new Set([
  'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED', 'UND_ERR_DESTROYED', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  'ENETUNREACH', 'ENETDOWN', 'EHOSTUNREACH', 'EHOSTDOWN',
  UpstreamErrorCode.TruncatedBody, UpstreamErrorCode.BadJson,
]);
// A certificate that does not verify is a configuration problem: retrying cannot fix it.
const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN', 'ERR_TLS_CERT_ALTNAME_INVALID', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);
const ABORT_CODES = new Set(['UND_ERR_ABORTED', 'ABORT_ERR']);

function rateLimitWaitMs(failure: HttpFailure, now: number): { waitMs: number; source: string } {
  const fromBody = parseErrorBody(failure.body).retryAfterSeconds;
  if (fromBody !== undefined) return { waitMs: Math.round(fromBody * 1000), source: 'retry_after' };
  const fromHeader = parseRetryAfter(failure.headers, now);
  if (fromHeader !== undefined) return { waitMs: fromHeader, source: 'Retry-After' };
  const info = parseRateLimitHeaders(failure.headers, now);
  if (info !== undefined) return { waitMs: Math.max(0, info.resetAtMs - now), source: 'X-RateLimit-Reset' };
  return { waitMs: DEFAULT_RATE_LIMIT_WAIT_MS, source: 'default' };
}

function byStatus(failure: HttpFailure, now: number): Classification {
  const { status } = failure;
  const http = `HTTP ${status}`;
  if (status === 429) {
    const { waitMs, source } = rateLimitWaitMs(failure, now);
    return { kind: 'rate_limited', retry: true, waitMs, reason: `${http}: wait ${waitMs} ms (${source})`, code: UpstreamErrorCode.RateLimited };
  }
  if (status === 401) return { kind: 'auth', retry: false, reason: `${http}: credentials rejected`, code: UpstreamErrorCode.Unauthorized };
  if (status === 403) return { kind: 'forbidden', retry: false, reason: `${http}: insufficient role`, code: UpstreamErrorCode.Forbidden };
  if (status === 400) return { kind: 'invalid', retry: false, reason: `${http}: bad request`, code: UpstreamErrorCode.BadRequest };
  if (status === 404) return { kind: 'invalid', retry: false, reason: `${http}: not found`, code: UpstreamErrorCode.NotFound };
  if (status === 408 || status >= 500) {
    const waitMs = parseRetryAfter(failure.headers, now);
    const code = status === 408 ? UpstreamErrorCode.Network : UpstreamErrorCode.ServerError;
    return { kind: 'transient', retry: true, ...(waitMs === undefined ? {} : { waitMs }), reason: `${http}: server failure`, code };
  }
  return { kind: 'invalid', retry: false, reason: `${http}: unexpected status`, code: UpstreamErrorCode.ClientError };
}

function errorCodes(error: unknown): { codes: string[]; aborted: boolean } {
  const codes: string[] = [];
  let aborted = false;
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string') codes.push(code);
    if (current.name === 'AbortError') aborted = true;
    current = current.cause;
  }
  return { codes, aborted: aborted || codes.some((c) => ABORT_CODES.has(c)) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * The one classifier of upstream failures (pure): an `UpstreamError`, a thrown network error
 * (undici / Node codes, followed through `cause`), a non-2xx answer (`HttpFailure`) or an unusable
 * 2xx body (`BodyFailure`). `now` (epoch ms) turns HTTP dates and resets into waits.
 */
export function classifyFailure(failure: unknown, now: number): Classification {
  if (isUpstreamError(failure)) {
    const retry = failure.kind === 'rate_limited' || (failure.kind === 'transient' && !errorCodes(failure.cause).aborted);
    const waitMs = failure.retryAfterMs ?? (failure.kind === 'rate_limited' ? DEFAULT_RATE_LIMIT_WAIT_MS : undefined);
    const status = failure.status === undefined ? '' : ` (HTTP ${failure.status})`;
    return { kind: failure.kind, retry, ...(waitMs === undefined ? {} : { waitMs }), reason: `${failure.code}${status}`, code: failure.code };
  }
  if (isObject(failure) && !(failure instanceof Error) && typeof failure.status === 'number') {
    if (failure.bodyProblem === 'truncated') {
      return { kind: 'transient', retry: true, reason: `HTTP ${failure.status}: body ended early`, code: UpstreamErrorCode.TruncatedBody };
    }
    if (failure.bodyProblem === 'bad_json') {
      return { kind: 'transient', retry: true, reason: `HTTP ${failure.status}: body is not a JSON object`, code: UpstreamErrorCode.BadJson };
    }
    return byStatus({ status: failure.status, headers: failure.headers as HeaderBag | undefined, body: failure.body }, now);
  }
  const { codes, aborted } = errorCodes(failure);
  if (aborted) return { kind: 'transient', retry: false, reason: 'request aborted', code: codes[0] ?? 'ABORT_ERR' };
  const transient = codes.find((c) => TRANSIENT_CODES.has(c));
  if (transient !== undefined) return { kind: 'transient', retry: true, reason: `network: ${transient}`, code: transient };
  const tls = codes.find((c) => TLS_CODES.has(c));
  if (tls !== undefined) return { kind: 'invalid', retry: false, reason: `TLS verification failed: ${tls}`, code: tls };
  const code = codes[0] ?? UpstreamErrorCode.Network;
  if (code.startsWith('UND_ERR_INVALID')) return { kind: 'invalid', retry: false, reason: `bad request options: ${code}`, code };
  // An unknown failure is retried (bounded by maxAttempts): most are passing network trouble.
  return { kind: 'transient', retry: true, reason: `unknown failure: ${code}`, code };
}
