import type { Dispatcher } from 'undici';
import { BodyTooLargeError, capRateLimitInfo, parseRateLimitHeaders, readBoundedBody } from '../http-policy/index.js';
import type { CappedWaitNote, ServicePolicy } from '../http-policy/index.js';
import type { Redact } from '../redact/index.js';
import type { RateLimitInfo } from '../ratelimit/index.js';
import { classifyFailure } from './classify.js';
import type { Classification } from './classify.js';
import { UpstreamErrorCode } from './errors.js';
import type { RequestContext } from './errors.js';
import { upstreamFailure } from './request-error.js';
import { parseJsonExact } from '../normalize/index.js';

/** A response read in full. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Dispatcher.ResponseData['headers'];
  readonly text: string;
  /** `X-RateLimit-*`, the reset cut to `maxWaitMs` from now. */
  readonly rateLimit?: RateLimitInfo;
  /** Set when the reset was further ahead than `maxWaitMs`. */
  readonly waitCapped?: CappedWaitNote;
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

function rateLimitOf(headers: Dispatcher.ResponseData['headers'], settings: ExchangeSettings): Pick<RawResponse, 'rateLimit' | 'waitCapped'> {
  const now = settings.now();
  const seen = parseRateLimitHeaders(headers, now);
  if (seen === undefined) return {};
  // A reset far ahead would stop the business for as long: it is cut like any server-named wait.
  const rateLimit = capRateLimitInfo(seen, now, settings.policy.maxWaitMs);
  if (rateLimit === seen) return { rateLimit };
  return { rateLimit, waitCapped: { askedMs: seen.resetAtMs - now, waitMs: settings.policy.maxWaitMs, source: 'X-RateLimit-Reset' } };
}

/**
 * Sends one request and reads the whole body within one deadline (`timeoutMs`, headers and body
 * together) and one size bound (`maxBodyBytes`, counted as the body streams in). Network failures,
 * a passed deadline, an oversized body and a body that ends early become transient `UpstreamError`s;
 * the HTTP status is left to the caller.
 */
export async function sendAndRead(
  dispatcher: Dispatcher,
  options: Dispatcher.RequestOptions,
  context: RequestContext,
  settings: ExchangeSettings,
): Promise<RawResponse> {
  const { redact, now, policy, timeoutMs, maxBodyBytes } = settings;
  const caller = options.signal as AbortSignal | undefined;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = caller === undefined ? deadline : AbortSignal.any([caller, deadline]);
  const timedOut = (): Classification => ({
    kind: 'transient', retry: true, code: UpstreamErrorCode.Timeout, reason: `no complete response within ${timeoutMs} ms (upstream.timeoutMs)`,
  });
  let response: Dispatcher.ResponseData;
  try {
    response = await dispatcher.request({ ...options, signal });
  } catch (error) {
    const classification = deadline.aborted && caller?.aborted !== true ? timedOut() : classifyFailure(error, now(), policy);
    throw upstreamFailure(classification, context, { cause: error }, redact);
  }
  const limits = rateLimitOf(response.headers, settings);
  try {
    const buffer = await readBoundedBody(response.body, maxBodyBytes, response.headers['content-length']);
    return { status: response.statusCode, headers: response.headers, text: buffer.toString('utf8'), ...limits };
  } catch (error) {
    const classification = error instanceof BodyTooLargeError
      ? tooLarge(response.statusCode, maxBodyBytes, now(), policy)
      : deadline.aborted && caller?.aborted !== true
        ? timedOut()
        : caller?.aborted === true
          ? classifyFailure(error, now(), policy)
          : classifyFailure({ status: response.statusCode, bodyProblem: 'truncated' }, now(), policy);
    throw upstreamFailure(classification, context, { status: response.statusCode, cause: error, ...(limits.rateLimit ? { rateLimit: limits.rateLimit } : {}) }, redact);
  }
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
