import { BodyTooLargeError, capRateLimitInfo, parseRateLimitHeaders } from '../http-policy/index.js';
import type { CappedWaitNote, ExchangeHead, ExchangeOutcome, ServicePolicy } from '../http-policy/index.js';
import type { Redact } from '../redact/index.js';
import type { RateLimitInfo } from '../ratelimit/index.js';
import { classifyFailure } from './classify.js';
import type { Classification } from './classify.js';
import { UpstreamErrorCode } from './errors.js';
import type { RequestContext, UpstreamError } from './errors.js';
import { upstreamFailure } from './request-error.js';
import { parseJsonExact } from '../normalize/index.js';

/** A response read in full. */
export interface RawResponse {
  readonly status: number;
  readonly headers: ExchangeHead['headers'];
  readonly text: string;
  /** `X-RateLimit-*`, the reset cut to `maxWaitMs` from now. */
  readonly rateLimit?: RateLimitInfo;
  /** Set when the reset was further ahead than `maxWaitMs`. */
  readonly waitCapped?: CappedWaitNote;
}

/** An attempt that failed, as upstream reads it: the error and the one classification it was built from. */
export interface UpstreamFailure {
  readonly error: UpstreamError;
  readonly classification: Classification;
}

/** What every exchange with the service shares: the redactor, the clock, the failure policy and the bounds. */
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

function rateLimitOf(headers: ExchangeHead['headers'], settings: ExchangeSettings): Pick<RawResponse, 'rateLimit' | 'waitCapped'> {
  const now = settings.now();
  const seen = parseRateLimitHeaders(headers, now);
  if (seen === undefined) return {};
  // A reset far ahead would stop the business for as long: it is cut like any server-named wait.
  const rateLimit = capRateLimitInfo(seen, now, settings.policy.maxWaitMs);
  if (rateLimit === seen) return { rateLimit };
  return { rateLimit, waitCapped: { askedMs: seen.resetAtMs - now, waitMs: settings.policy.maxWaitMs, source: 'X-RateLimit-Reset' } };
}

/**
 * Upstream's reading of one exchange attempt (`send()` did the deadline, headers and body together,
 * and the size bound): a complete answer of any status, or the failure. Network failures, a passed
 * deadline, an oversized body and a body that ends early are transient; the caller's cancel is final.
 */
export function readOutcome(outcome: ExchangeOutcome, context: RequestContext, settings: ExchangeSettings): { readonly raw: RawResponse } | UpstreamFailure {
  const { redact, now, policy, timeoutMs, maxBodyBytes } = settings;
  if ('response' in outcome) {
    const { status, headers, body } = outcome.response;
    return { raw: { status, headers, text: body.toString('utf8'), ...rateLimitOf(headers, settings) } };
  }
  const { error, head } = outcome;
  const timedOut: Classification = {
    kind: 'transient', retry: true, code: UpstreamErrorCode.Timeout, reason: `no complete response within ${timeoutMs} ms (upstream.timeoutMs)`,
  };
  if (head === undefined) {
    const classification = outcome.timedOut ? timedOut : classifyFailure(error, now(), policy);
    return { error: upstreamFailure(classification, context, { cause: error }, redact), classification };
  }
  const limits = rateLimitOf(head.headers, settings);
  const classification = error instanceof BodyTooLargeError
    ? tooLarge(head.status, maxBodyBytes, now(), policy)
    : outcome.timedOut
      ? timedOut
      : outcome.cancelled
        ? classifyFailure(error, now(), policy)
        : classifyFailure({ status: head.status, bodyProblem: 'truncated' }, now(), policy);
  const details = { status: head.status, cause: error, ...(limits.rateLimit ? { rateLimit: limits.rateLimit } : {}) };
  return { error: upstreamFailure(classification, context, details, redact), classification };
}

function tooLarge(status: number, maxBodyBytes: number, now: number, policy: ServicePolicy): Classification {
  const classification = classifyFailure({ status, bodyProblem: 'too_large' }, now, policy);
  return { ...classification, reason: `${classification.reason} (${maxBodyBytes} bytes): not read further` };
}

/** `JSON.parse`, or `undefined` when the text is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return parseJsonExact(text);
  } catch {
    return undefined;
  }
}
