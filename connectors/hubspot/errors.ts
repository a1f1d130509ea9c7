import type { Classification, HubSpotErrorKind } from './classify.js';

/**
 * A HubSpot request that failed for good. Carries method, path (without query), status and
 * HubSpot's whitelisted body fields; never headers, the token or request bodies.
 */
export class HubSpotError extends Error {
  override readonly name = 'HubSpotError';
  /** Stable code, e.g. `HUBSPOT_DAILY_LIMIT`. */
  readonly code: string;
  readonly kind: HubSpotErrorKind;
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  /** HubSpot's own message, for dead letters. */
  readonly hubspotMessage: string | undefined;
  readonly correlationId: string | undefined;
  readonly policyName: string | undefined;
  /** HubSpot refused the content of a batch (400/409); splitting it finds the records at fault. */
  readonly batchRejection: boolean;

  constructor(request: { method: string; path: string; status?: number }, classification: Classification, options?: ErrorOptions) {
    super(`HubSpot ${request.method} ${request.path} failed: ${classification.reason}${hint(classification.kind)}`, options);
    this.kind = classification.kind;
    this.code = `HUBSPOT_${classification.kind.toUpperCase()}`;
    this.method = request.method;
    this.path = request.path;
    this.status = request.status;
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
  if (kind === 'daily_limit') return ' (the portal\'s daily API limit is used up; syncing stops until HubSpot resets it)';
  if (kind === 'auth') return ' (check the private app token)';
  if (kind === 'forbidden') return ' (the private app lacks a scope; see the connector README)';
  return '';
}
