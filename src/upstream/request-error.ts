import type { RateLimitInfo } from '../ratelimit/index.js';
import type { Classification } from './classify.js';
import { UpstreamError } from './errors.js';
import type { RequestContext } from './errors.js';

/** Removes known secrets from text that may reach logs (a server could echo a credential back). */
export type Redactor = (text: string) => string;

export function createRedactor(secrets: () => readonly (string | undefined)[]): Redactor {
  return (text) =>
    secrets().reduce<string>(
      (out, secret) => (secret !== undefined && secret.length >= 4 ? out.split(secret).join('[redacted]') : out),
      text,
    );
}

export interface FailureDetails {
  readonly status?: number;
  /** The server's own message (from the error body), if any. */
  readonly serverMessage?: string;
  readonly rateLimit?: RateLimitInfo;
  readonly cause?: unknown;
}

/** Builds the `UpstreamError` for a classified failure; the message holds no header, token or query. */
export function upstreamFailure(
  classification: Classification,
  request: RequestContext,
  details: FailureDetails,
  redact: Redactor,
): UpstreamError {
  const server = details.serverMessage === undefined ? '' : `: ${details.serverMessage}`;
  const message = redact(`${request.method} ${request.host}${request.path} failed: ${classification.reason}${server}`);
  return new UpstreamError(message, {
    code: classification.code,
    kind: classification.kind,
    request,
    ...(details.status === undefined ? {} : { status: details.status }),
    ...(classification.waitMs === undefined ? {} : { retryAfterMs: classification.waitMs }),
    ...(details.rateLimit === undefined ? {} : { rateLimit: details.rateLimit }),
    ...(details.cause === undefined ? {} : { cause: details.cause }),
  });
}
