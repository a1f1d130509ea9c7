import { isUpstreamError } from '../upstream/index.js';
import { PayloadShapeError } from './walkers/index.js';

/** What a failed stream means for the rest of its business. */
export interface StreamFailure {
  /** `business`: stop every stream of this business (revoked key, missing role); `stream`: only this one. */
  readonly scope: 'business' | 'stream';
  readonly kind: 'auth' | 'forbidden' | 'invalid' | 'transient' | 'rate_limited' | 'contract' | 'sink' | 'internal';
  readonly message: string;
}

/** Maps any error out of a stream run to its scope, so one bad business never stops the others. */
export function describeStreamFailure(error: unknown): StreamFailure {
  if (isUpstreamError(error)) {
    const scope = error.kind === 'auth' || error.kind === 'forbidden' ? 'business' : 'stream';
    return { scope, kind: error.kind, message: error.message };
  }
  if (error instanceof PayloadShapeError) return { scope: 'stream', kind: 'contract', message: error.message };
  // Connector errors (HubSpot, webhook, SQL) carry their own `kind`; they concern the target, not the business.
  const kind = error instanceof Error ? (error as Error & { kind?: unknown }).kind : undefined;
  if (error instanceof Error && typeof kind === 'string') return { scope: 'stream', kind: 'sink', message: `${kind}: ${error.message}` };
  return { scope: 'stream', kind: 'internal', message: error instanceof Error ? error.message : String(error) };
}
