import { HttpError } from '../../src/http/index.js';
import type { Classification, HubSpotErrorKind } from './classify.js';

/**
 * A HubSpot request that failed for good: the exchange's `HttpError` (code e.g.
 * `HUBSPOT_DAILY_LIMIT`) with HubSpot's fields. Carries method, path (without query), status and
 * HubSpot's whitelisted body fields; never headers, the token or request bodies.
 */
export class HubSpotError extends HttpError<HubSpotErrorKind> {
  override readonly name = 'HubSpotError';
  readonly method: string;
  readonly path: string;
  /** HubSpot's own message, for dead letters. */
  readonly hubspotMessage: string | undefined;
  readonly correlationId: string | undefined;
  readonly policyName: string | undefined;
  /** HubSpot refused the content of a batch (400/409); splitting it finds the records at fault. */
  readonly batchRejection: boolean;

  constructor(request: { method: string; path: string; status?: number }, classification: Classification, options?: ErrorOptions) {
    super(`HubSpot ${request.method} ${request.path} failed: ${classification.reason}${hint(classification.kind)}`, {
      service: 'hubspot',
      kind: classification.kind,
      code: `HUBSPOT_${classification.kind.toUpperCase()}`,
      status: request.status,
      ...(classification.kind === 'rate_limited' ? { retryAfterMs: classification.waitMs } : {}),
      ...(options?.cause === undefined ? {} : { cause: options.cause }),
    });
    this.method = request.method;
    this.path = request.path;
    this.hubspotMessage = classification.hubspotMessage;
    this.correlationId = classification.correlationId;
    this.policyName = classification.policyName;
    this.batchRejection = classification.batchRejection;
  }
}

/** True for a {@link HubSpotError}, also across module copies (by name). */
export function isHubSpotError(error: unknown): error is HubSpotError {
  return error instanceof HubSpotError || (error instanceof Error && error.name === 'HubSpotError' && 'kind' in error);
}

function hint(kind: HubSpotErrorKind): string {
  if (kind === 'daily_limit') return " (the portal's daily API limit is used up; syncing stops until HubSpot resets it)";
  if (kind === 'auth') return ' (check the private app token)';
  if (kind === 'forbidden') return ' (the private app lacks a scope; see the connector README)';
  return '';
}
