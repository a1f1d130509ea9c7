import { backoffDelayMs } from './backoff.js';
import type { BackoffOptions } from './backoff.js';
import { describeThrown } from './network-errors.js';

// `BodyTooLargeError.code` (exchange.ts), kept here as data so the pure policy imports no I/O.
const BODY_TOO_LARGE = 'BODY_TOO_LARGE';
import { headerValue, type HeaderBag } from './headers.js';
import { capWait, parseRateLimitHeaders, parseRetryAfter } from './server-wait.js';

/**
 * How one service reads failures: plain data, so the three services differ only here
 * (`services.ts`) and one table test covers them all.
 */
export interface ServicePolicy {
  /** Named in reasons and in the capped-wait warning. */
  readonly service: string;
  /** The config key that bounds server-named waits, named when one is cut. */
  readonly maxWaitKey: string;
  /** Longest wait a server's answer may impose; a longer one is cut to this. */
  readonly maxWaitMs: number;
  readonly backoff: BackoffOptions;
  /** Wait after a 429 that names none; `undefined` → backoff, at least `minRateLimitWaitMs`. */
  readonly rateLimitDefaultWaitMs?: number;
  /** @defaultValue 0 */
  readonly minRateLimitWaitMs?: number;
  /** A server-named wait gets up to `backoff.baseDelayMs` of uniform jitter, so replicas do not return together. @defaultValue false */
  readonly jitterServerWaits?: boolean;
  /** Whether an abort is a passing failure (the service times attempts out by signal) or the caller's cancel. */
  readonly abortIsTransient: boolean;
  /** Whether an error with no known code is retried (passing network trouble) or a bug to surface. */
  readonly retryUnknownErrors: boolean;
}

/** What one attempt produced, when it was not a usable 2xx. */
export type HttpOutcome = { readonly status: number; readonly headers?: HeaderBag; readonly bodyProblem?: BodyProblem } | { readonly error: unknown };

/** A 2xx whose body could not be used: ended early, was not the JSON expected, or exceeded the size bound. */
type BodyProblem = 'truncated' | 'bad_json' | 'too_large';

/**
 * How the shared policy reads one failed attempt, finer than the one failure vocabulary
 * (`FailureKind`, `http-error.ts`): a service's `decide` hook maps this reading to a `FailureKind`
 * for its error (a 404 is `not_found` at HubSpot, `invalid` upstream; an abort is a passing
 * timeout at a webhook, the caller's cancel upstream). Only `decide` hooks read it.
 */
export type HttpFailureKind =
  'rate_limited' | 'transient' | 'auth' | 'forbidden' | 'not_found' | 'conflict' | 'bad_request' | 'rejected' | 'aborted' | 'tls' | 'bad_options' | 'unknown';

type WaitSource = 'body' | 'Retry-After' | 'X-RateLimit-Reset' | 'documented' | 'default' | 'backoff' | 'none';

export interface HttpVerdict {
  readonly kind: HttpFailureKind;
  readonly retry: boolean;
  /** How long to wait before the retry; 0 when `retry` is false. */
  readonly waitMs: number;
  readonly waitSource: WaitSource;
  /** The wait the server named (after the cap), when it named one. */
  readonly serverWaitMs?: number;
  /** Set when the server asked for longer than `maxWaitMs`: what it asked. */
  readonly askedWaitMs?: number;
  /** `HTTP 503`, `ECONNRESET`, `TimeoutError`… */
  readonly label: string;
  readonly status?: number;
  /** The network code of a thrown error. */
  readonly code?: string;
  /** The thrown error's message (may echo outside text: redact before output). */
  readonly detail?: string;
}

export interface AttemptContext {
  readonly nowMs: number;
  /** Retries so far, 1 for the first. @defaultValue 1 */
  readonly attempt?: number;
  /** In [0, 1), for jitter. @defaultValue 0 */
  readonly random?: number;
  /** A wait the body named (the upstream 429 `retry_after`); wins over headers. */
  readonly bodyWaitMs?: number;
  /** The service's documented wait for this answer (HubSpot's SECONDLY policy): used when no header names one. */
  readonly documentedWaitMs?: number;
}

/** 408 and every 5xx: the server may answer the same request later. The one transient-status rule. */
function isTransientStatus(status: number): boolean {
  return status === 408 || (status >= 500 && status <= 599);
}

const STATUS_KINDS: Readonly<Record<number, HttpFailureKind>> = {
  429: 'rate_limited',
  401: 'auth',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  400: 'bad_request',
  422: 'bad_request',
};

function statusKind(status: number): HttpFailureKind {
  return STATUS_KINDS[status] ?? (isTransientStatus(status) ? 'transient' : 'rejected');
}

interface ServerWait {
  readonly ms: number;
  readonly source: WaitSource;
}

// Retry-After is honoured on any status; a rate-limit reset and a documented wait only explain a 429.
function serverWait(headers: HeaderBag | undefined, rateLimited: boolean, context: AttemptContext): ServerWait | undefined {
  if (context.bodyWaitMs !== undefined) return { ms: context.bodyWaitMs, source: 'body' };
  const retryAfter = parseRetryAfter(headerValue(headers, 'retry-after'), context.nowMs);
  if (retryAfter !== undefined) return { ms: retryAfter, source: 'Retry-After' };
  if (!rateLimited) return undefined;
  const info = parseRateLimitHeaders(headers, context.nowMs);
  if (info !== undefined) return { ms: Math.max(0, info.resetAtMs - context.nowMs), source: 'X-RateLimit-Reset' };
  if (context.documentedWaitMs !== undefined) return { ms: context.documentedWaitMs, source: 'documented' };
  return undefined;
}

function waitFor(kind: HttpFailureKind, wait: ServerWait | undefined, policy: ServicePolicy, context: AttemptContext) {
  const random = context.random ?? 0;
  const backoff = backoffDelayMs(context.attempt ?? 1, policy.backoff, () => random);
  if (wait !== undefined) {
    const capped = capWait(wait.ms, policy.maxWaitMs);
    const jittered = Math.min(policy.maxWaitMs, Math.round(capped.waitMs + (policy.jitterServerWaits === true ? random * policy.backoff.baseDelayMs : 0)));
    const waitMs = kind === 'transient' ? Math.max(jittered, backoff) : jittered;
    return { waitMs, waitSource: wait.source, serverWaitMs: capped.waitMs, ...(capped.askedMs === undefined ? {} : { askedWaitMs: capped.askedMs }) };
  }
  if (kind === 'rate_limited' && policy.rateLimitDefaultWaitMs !== undefined) return { waitMs: policy.rateLimitDefaultWaitMs, waitSource: 'default' as const };
  const floor = kind === 'rate_limited' ? (policy.minRateLimitWaitMs ?? 0) : 0;
  return { waitMs: Math.max(floor, backoff), waitSource: 'backoff' as const };
}

function retryable(kind: HttpFailureKind, policy: ServicePolicy): boolean {
  if (kind === 'rate_limited' || kind === 'transient') return true;
  if (kind === 'aborted') return policy.abortIsTransient;
  return kind === 'unknown' && policy.retryUnknownErrors;
}

/**
 * The one HTTP failure policy (pure): what an attempt's failure means, whether to send again and
 * after how long. Waits a server names (body hint, `Retry-After` in seconds or as a date on any
 * status, `X-RateLimit-Reset` on a 429) win over backoff and are cut to `maxWaitMs`; transient
 * failures wait at least the full-jitter backoff.
 */
export function classifyHttp(outcome: HttpOutcome, policy: ServicePolicy, context: AttemptContext): HttpVerdict {
  let kind: HttpFailureKind;
  let base: Pick<HttpVerdict, 'label' | 'status' | 'code' | 'detail'>;
  let wait: ServerWait | undefined;
  if ('error' in outcome) {
    const thrown = describeThrown(outcome.error);
    // A body past its size bound is a body problem (`too_large`) whichever way it reached us.
    kind = thrown.kind === 'timeout' || thrown.kind === 'network' || thrown.code === BODY_TOO_LARGE ? 'transient' : thrown.kind;
    base = { label: thrown.label, detail: thrown.message, ...(thrown.code === undefined ? {} : { code: thrown.code }) };
  } else {
    const { status } = outcome;
    kind = outcome.bodyProblem === undefined ? statusKind(status) : 'transient';
    base = { label: `HTTP ${status}`, status };
    wait = serverWait(outcome.headers, kind === 'rate_limited', context);
  }
  const retry = retryable(kind, policy);
  if (!retry) return { kind, retry, waitMs: 0, waitSource: 'none', ...base };
  return { kind, retry, ...waitFor(kind, wait, policy, context), ...base };
}
