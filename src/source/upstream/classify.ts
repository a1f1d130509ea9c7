import { BodyTooLargeError, classifyHttp, DEFAULT_MAX_WAIT_MS, servicePolicy, UPSTREAM_TRAITS } from '../../http/index.js';
import type { CappedWaitNote, ExchangeOutcome, HeaderBag, HttpFailureKind, HttpVerdict, ServicePolicy } from '../../http/index.js';
import { forTerminal, type Redact } from '../../base/redact/index.js';
import type { RateLimitInfo } from '../ratelimit/index.js';
import { parseErrorBody } from './envelopes.js';
import { rateLimitOf } from './read-response.js';
import { UpstreamError, UpstreamErrorCode } from './errors.js';
import type { RequestContext, UpstreamErrorKind } from './errors.js';

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
  readonly bodyProblem: 'truncated' | 'bad_json' | 'too_large';
}

/** What to do about one failure. */
export interface Classification {
  readonly kind: UpstreamErrorKind;
  readonly retry: boolean;
  /** How long the server said to wait (cut to `maxWaitMs`); a 429 naming none waits one window. */
  readonly waitMs?: number;
  /** Set when the server asked for longer than `maxWaitMs`. */
  readonly waitCapped?: CappedWaitNote;
  /** Short human-readable cause, free of secrets. */
  readonly reason: string;
  /** Stable code for an `UpstreamError` built from this failure. */
  readonly code: string;
  /** What the operator does about it (no `fix:` prefix), when the kind alone does not say. */
  readonly fix?: string;
}

/** Wait after a 429 that names no wait at all: one documented window. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = UPSTREAM_TRAITS.rateLimitDefaultWaitMs ?? 60_000;

/** The upstream policy for classifying: it never backs off (the client's `decide` does), so only the wait cap is set. */
export function upstreamClassifyPolicy(maxWaitMs = DEFAULT_MAX_WAIT_MS): ServicePolicy {
  return servicePolicy(UPSTREAM_TRAITS, { baseDelayMs: 0, maxDelayMs: 0 }, maxWaitMs);
}

const DEFAULT_POLICY = upstreamClassifyPolicy();

const STATUS_CODES: Partial<Record<HttpFailureKind, readonly [UpstreamErrorKind, string, string]>> = {
  rate_limited: ['rate_limited', UpstreamErrorCode.RateLimited, 'rate limited'],
  auth: ['auth', UpstreamErrorCode.Unauthorized, 'credentials rejected'],
  forbidden: ['forbidden', UpstreamErrorCode.Forbidden, 'insufficient role'],
  bad_request: ['invalid', UpstreamErrorCode.BadRequest, 'bad request'],
  not_found: ['invalid', UpstreamErrorCode.NotFound, 'not found'],
  transient: ['transient', UpstreamErrorCode.ServerError, 'server failure'],
};

const BODY_PROBLEMS = {
  truncated: [UpstreamErrorCode.TruncatedBody, 'body ended early'],
  bad_json: [UpstreamErrorCode.BadJson, 'body is not a JSON object'],
  too_large: [UpstreamErrorCode.BodyTooLarge, 'body exceeds upstream.maxBodyBytes'],
} as const;

function waits(verdict: HttpVerdict, maxWaitMs: number): Pick<Classification, 'waitMs' | 'waitCapped'> {
  const waitMs = verdict.kind === 'rate_limited' ? verdict.waitMs : verdict.serverWaitMs;
  const capped = verdict.askedWaitMs === undefined ? {} : { waitCapped: { askedMs: verdict.askedWaitMs, waitMs: maxWaitMs, source: verdict.waitSource } };
  return { ...(waitMs === undefined ? {} : { waitMs }), ...capped };
}

/**
 * 414 and 431: the request line or headers are longer than the server, or a proxy in front of
 * it, accepts. Sending it again cannot help; only what the request carries can change.
 */
const REQUEST_TOO_LARGE: Readonly<Record<number, string>> = { 414: 'the URL is longer', 431: 'the request line or headers are larger' };

function requestTooLarge(http: string, what: string): Classification {
  return {
    kind: 'invalid',
    retry: false,
    reason: `${http}: ${what} than the server accepts`,
    code: UpstreamErrorCode.RequestTooLarge,
    fix:
      'check that businesses[].apiKey (or .session) holds only the credential, and raise the header limit of any proxy in front of the upstream; ' +
      'a stored cursor too long to send is dropped by the next run, which resumes by offset',
  };
}

function byStatus(failure: HttpFailure | BodyFailure, policy: ServicePolicy, now: number): Classification {
  const http = `HTTP ${failure.status}`;
  if ('bodyProblem' in failure) {
    const [code, what] = BODY_PROBLEMS[failure.bodyProblem];
    return { kind: 'transient', retry: true, reason: `${http}: ${what}`, code };
  }
  const tooLarge = REQUEST_TOO_LARGE[failure.status];
  if (tooLarge !== undefined) return requestTooLarge(http, tooLarge);
  const bodyWaitSeconds = failure.status === 429 ? parseErrorBody(failure.body).retryAfterSeconds : undefined;
  const verdict = classifyHttp(failure, policy, { nowMs: now, ...(bodyWaitSeconds === undefined ? {} : { bodyWaitMs: Math.round(bodyWaitSeconds * 1000) }) });
  const [kind, code, what] = STATUS_CODES[verdict.kind] ?? ['invalid', UpstreamErrorCode.ClientError, 'unexpected status'];
  const finalCode = failure.status === 408 ? UpstreamErrorCode.Network : code;
  const source = verdict.waitSource === 'body' ? 'retry_after' : verdict.waitSource;
  const reason = verdict.kind === 'rate_limited' ? `${http}: wait ${verdict.waitMs} ms (${source})` : `${http}: ${what}`;
  return { kind, retry: verdict.retry, ...waits(verdict, policy.maxWaitMs), reason, code: finalCode };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * Upstream's reading of the shared HTTP policy (`src/http/`), with its error codes: a
 * thrown network error, a non-2xx answer (`HttpFailure`) or an unusable 2xx body (`BodyFailure`).
 * Made once per attempt; the `UpstreamError` built from it travels with it and is never classified
 * again. `now` (epoch ms) turns HTTP dates and resets into waits.
 */
export function classifyFailure(failure: unknown, now: number, policy: ServicePolicy = DEFAULT_POLICY): Classification {
  if (isObject(failure) && !(failure instanceof Error) && typeof failure.status === 'number') {
    return byStatus(failure as unknown as HttpFailure | BodyFailure, policy, now);
  }
  const verdict = classifyHttp({ error: failure }, policy, { nowMs: now });
  const code = verdict.code ?? (verdict.kind === 'aborted' ? 'ABORT_ERR' : UpstreamErrorCode.Network);
  switch (verdict.kind) {
    case 'aborted':
      return { kind: 'transient', retry: false, reason: 'request aborted', code };
    case 'tls':
      return { kind: 'invalid', retry: false, reason: `TLS verification failed: ${code}`, code };
    case 'bad_options':
      return { kind: 'invalid', retry: false, reason: `bad request options: ${code}`, code };
    case 'unknown':
      // An unknown failure is retried (bounded by maxAttempts): most are passing network trouble.
      return { kind: 'transient', retry: verdict.retry, reason: `unknown failure: ${code}`, code };
    default:
      return { kind: 'transient', retry: true, reason: `network: ${verdict.label}`, code: verdict.code ?? verdict.label };
  }
}

// The error built from a classification, and the failures of an exchange that gave no answer

/** What every exchange with the upstream shares: the redactor, the clock, the failure policy and the bounds. */
export interface ExchangeSettings {
  readonly redact: Redact;
  readonly now: () => number;
  /** Its `maxWaitMs` bounds every wait a server names. */
  readonly policy: ServicePolicy;
  /** One deadline per request, headers and body together, ms. */
  readonly timeoutMs: number;
  /** Largest body read; a longer one fails as transient. */
  readonly maxBodyBytes: number;
}

/** An attempt that failed, as upstream reads it: the error and the one classification it was built from. */
export interface UpstreamFailure {
  readonly error: UpstreamError;
  readonly classification: Classification;
}

interface FailureDetails {
  readonly status?: number;
  /** The server's own message (from the error body), if any. */
  readonly serverMessage?: string;
  readonly rateLimit?: RateLimitInfo;
  /** A rate-limit reset cut to `maxWaitMs` (the classification names a cut `Retry-After` itself). */
  readonly waitCapped?: CappedWaitNote;
  readonly cause?: unknown;
}

// Each error keeps the classification it was built from, so a caller reads it instead of classifying again.
const classifications = new WeakMap<UpstreamError, Classification>();

/** The classification an `UpstreamError` was built from by {@link upstreamFailure}; `undefined` for one built elsewhere. */
export function classificationOf(error: UpstreamError): Classification | undefined {
  return classifications.get(error);
}

/** Builds the `UpstreamError` for a classified failure; the message holds no header, token or query. */
export function upstreamFailure(classification: Classification, request: RequestContext, details: FailureDetails, redact: Redact): UpstreamFailure {
  const server = details.serverMessage === undefined ? '' : `: ${details.serverMessage}`;
  const capped = classification.waitCapped ?? details.waitCapped;
  const message = redact(forTerminal(`${request.method} ${request.host}${request.path} failed: ${classification.reason}${server}`));
  const error = new UpstreamError(message, {
    code: classification.code,
    kind: classification.kind,
    request,
    ...(details.status === undefined ? {} : { status: details.status }),
    ...(classification.waitMs === undefined ? {} : { retryAfterMs: classification.waitMs }),
    ...(details.rateLimit === undefined ? {} : { rateLimit: details.rateLimit }),
    ...(capped === undefined ? {} : { waitCapped: capped }),
    ...(details.cause === undefined ? {} : { cause: details.cause }),
    ...(classification.fix === undefined ? {} : { fix: classification.fix }),
  });
  classifications.set(error, classification);
  return { error, classification };
}

/**
 * An attempt that gave no complete answer (`send()` did the deadline, headers and body together,
 * and the size bound): network failures, a passed deadline, an oversized body and a body that
 * ends early are transient; the caller's cancel is final.
 */
export function unanswered(
  outcome: Exclude<ExchangeOutcome, { readonly response: unknown }>,
  context: RequestContext,
  settings: ExchangeSettings,
): UpstreamFailure {
  const { redact, now, policy, timeoutMs, maxBodyBytes } = settings;
  const { error, head } = outcome;
  const timedOut: Classification = {
    kind: 'transient',
    retry: true,
    code: UpstreamErrorCode.Timeout,
    reason: `no complete response within ${timeoutMs} ms (upstream.timeoutMs)`,
  };
  if (head === undefined) return upstreamFailure(outcome.timedOut ? timedOut : classifyFailure(error, now(), policy), context, { cause: error }, redact);
  const { rateLimit } = rateLimitOf(head.headers, now(), policy.maxWaitMs);
  const classification =
    error instanceof BodyTooLargeError
      ? tooLarge(head.status, maxBodyBytes, now(), policy)
      : outcome.timedOut
        ? timedOut
        : outcome.cancelled
          ? classifyFailure(error, now(), policy)
          : classifyFailure({ status: head.status, bodyProblem: 'truncated' }, now(), policy);
  return upstreamFailure(classification, context, { status: head.status, cause: error, ...(rateLimit === undefined ? {} : { rateLimit }) }, redact);
}

function tooLarge(status: number, maxBodyBytes: number, now: number, policy: ServicePolicy): Classification {
  const classification = classifyFailure({ status, bodyProblem: 'too_large' }, now, policy);
  return { ...classification, reason: `${classification.reason} (${maxBodyBytes} bytes): not read further` };
}
