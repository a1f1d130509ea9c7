import type { CappedWaitNote } from '../../http/index.js';
import type { RateLimitInfo } from '../ratelimit/index.js';
import type { Redact } from '../../base/redact/index.js';
import { forTerminal } from '../../base/redact/index.js';
import type { Classification } from './classify.js';
import { UpstreamError } from './errors.js';
import type { RequestContext } from './errors.js';

export interface FailureDetails {
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
export function upstreamFailure(classification: Classification, request: RequestContext, details: FailureDetails, redact: Redact): UpstreamError {
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
  return error;
}
