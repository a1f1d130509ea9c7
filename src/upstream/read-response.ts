import type { Dispatcher } from 'undici';
import { capRateLimitInfo, parseRateLimitHeaders } from '../http-policy/index.js';
import type { ServicePolicy } from '../http-policy/index.js';
import type { Redact } from '../redact/index.js';
import type { RateLimitInfo } from '../ratelimit/index.js';
import { classifyFailure } from './classify.js';
import type { RequestContext } from './errors.js';
import { upstreamFailure } from './request-error.js';

/** A response read in full. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Dispatcher.ResponseData['headers'];
  readonly text: string;
  readonly bytes: number;
  readonly rateLimit?: RateLimitInfo;
}

/** What every exchange with the service shares: the redactor, the clock and the failure policy. */
export interface ExchangeSettings {
  readonly redact: Redact;
  readonly now: () => number;
  readonly policy: ServicePolicy;
}

/**
 * Sends one request and reads the whole body. Network failures and bodies that end early become
 * `UpstreamError`s (the latter with code `UND_TRUNCATED_BODY`); the HTTP status is left to the caller.
 */
export async function sendAndRead(
  dispatcher: Dispatcher,
  options: Dispatcher.RequestOptions,
  context: RequestContext,
  settings: ExchangeSettings,
): Promise<RawResponse> {
  const { redact, now, policy } = settings;
  let response: Dispatcher.ResponseData;
  try {
    response = await dispatcher.request(options);
  } catch (error) {
    throw upstreamFailure(classifyFailure(error, now(), policy), context, { cause: error }, redact);
  }
  const seen = parseRateLimitHeaders(response.headers, now());
  // A reset far ahead would stop the business for as long: it is cut like any server-named wait.
  const rateLimit = seen === undefined ? undefined : capRateLimitInfo(seen, now(), policy.maxWaitMs);
  try {
    const buffer = Buffer.from(await response.body.arrayBuffer());
    return { status: response.statusCode, headers: response.headers, text: buffer.toString('utf8'), bytes: buffer.byteLength, ...(rateLimit ? { rateLimit } : {}) };
  } catch (error) {
    const classification = options.signal && (options.signal as AbortSignal).aborted
      ? classifyFailure(error, now(), policy)
      : classifyFailure({ status: response.statusCode, bodyProblem: 'truncated' }, now(), policy);
    throw upstreamFailure(classification, context, { status: response.statusCode, cause: error, ...(rateLimit ? { rateLimit } : {}) }, redact);
  }
}

/** `JSON.parse`, or `undefined` when the text is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
