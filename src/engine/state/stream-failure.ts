import type { FailureKind } from '../../http/index.js';
import { connectorFix } from '../../sink/sink.js';
import { isUpstreamError } from '../../source/upstream/index.js';
import { PayloadShapeError } from '../../source/walkers/index.js';

/** What a failed stream means for the rest of its business. */
export interface StreamFailure {
  /** `business`: stop every stream of this business (revoked key, missing role); `stream`: only this one. */
  readonly scope: 'business' | 'stream';
  /**
   * The exchange's one vocabulary (`FailureKind`) for an upstream failure, plus what only a stream
   * run can meet: `contract` (an answer of the wrong shape) and `sink` (the target's own failure).
   */
  readonly kind: Extract<FailureKind, 'auth' | 'forbidden' | 'invalid' | 'transient' | 'rate_limited' | 'internal'> | 'contract' | 'sink';
  readonly message: string;
  /**
   * What the operator does (no `fix:` prefix) when the failure itself knows: a connector's own fix
   * naming its config key (kind `sink`), or upstream's for an answer the kind alone does not
   * explain (a request too large, a cursor too long); else the generic one for the kind.
   */
  readonly fix?: string;
}

/**
 * The business-scope rule, the one place it lives: only credentials the service rejects (401) or
 * a role it refuses (403) concern every stream of the business; anything else stops one stream.
 */
const STOPS_BUSINESS: ReadonlySet<string> = new Set(['auth', 'forbidden']);

/** Maps any error out of a stream run to its scope, so one bad business never stops the others. */
export function describeStreamFailure(error: unknown): StreamFailure {
  if (isUpstreamError(error)) {
    const scope = STOPS_BUSINESS.has(error.kind) ? 'business' : 'stream';
    return { scope, kind: error.kind, message: error.message, ...(error.fix === undefined ? {} : { fix: error.fix }) };
  }
  if (error instanceof PayloadShapeError)
    return { scope: 'stream', kind: 'contract', message: error.message, ...(error.fix === undefined ? {} : { fix: error.fix }) };
  // Connector errors (HubSpot, webhook, SQL) carry their own `kind`; they concern the target, not the business.
  const kind = error instanceof Error ? (error as Error & { kind?: unknown }).kind : undefined;
  if (error instanceof Error && typeof kind === 'string') {
    const fix = connectorFix(error);
    return { scope: 'stream', kind: 'sink', message: `${kind}: ${error.message}`, ...(fix === undefined ? {} : { fix }) };
  }
  return { scope: 'stream', kind: 'internal', message: error instanceof Error ? error.message : String(error) };
}
