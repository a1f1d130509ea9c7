/**
 * The one vocabulary of how an HTTP exchange failed, whatever the service. The engine reads only
 * this (`src/engine/state/stream-failure.ts`, `src/engine/state/run-end.ts` map it to how a run ends):
 * - `auth` / `forbidden`: the credential is refused or lacks a role; retrying cannot help.
 * - `rate_limited`: the service asked for a wait; `retryAfterMs` says how long.
 * - `daily_limit`: a quota that only the service's own reset restores (HubSpot's daily limit).
 * - `transient`: network trouble, a passed deadline, a 5xx or an unusable body; a later try may pass.
 * - `invalid`: the request itself was refused (4xx) or could not be made.
 * - `conflict` / `not_found`: the service refused this request's target (409 / 404).
 * - `internal`: our own failure (a bug, a request the service never saw).
 */
export type FailureKind = 'auth' | 'forbidden' | 'rate_limited' | 'daily_limit' | 'transient' | 'invalid' | 'conflict' | 'not_found' | 'internal';

interface HttpErrorOptions<K extends FailureKind = FailureKind> {
  /** Which service answered (`upstream`, `hubspot`, `webhook`, …). */
  readonly service: string;
  readonly kind: K;
  /** Stable machine-readable code, e.g. `RATE_LIMITED`, `HUBSPOT_DAILY_LIMIT`, `ECONNRESET`. */
  readonly code: string;
  readonly status?: number | undefined;
  readonly retryAfterMs?: number | undefined;
  readonly cause?: unknown;
}

/**
 * The one error an HTTP exchange throws (services subclass it only to add their own whitelisted
 * fields). Its message names method, host or path and status, never headers, tokens or queries:
 * `send()` runs the service's redactor over it before throwing.
 */
export class HttpError<K extends FailureKind = FailureKind> extends Error {
  override readonly name: string = 'HttpError';
  readonly service: string;
  readonly kind: K;
  readonly code: string;
  /** The HTTP status of the answer that failed; `undefined` when none arrived. */
  readonly status: number | undefined;
  /** How long the service asked to wait (cut to the service's `maxWaitMs`), ms. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: HttpErrorOptions<K>) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.service = options.service;
    this.kind = options.kind;
    this.code = options.code;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** True for an {@link HttpError} of any service, also across module copies (by shape). */
export function isHttpError(value: unknown): value is HttpError {
  if (value instanceof HttpError) return true;
  if (!(value instanceof Error)) return false;
  const { service, kind, code } = value as { service?: unknown; kind?: unknown; code?: unknown };
  return typeof service === 'string' && typeof kind === 'string' && typeof code === 'string';
}
