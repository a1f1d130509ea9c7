import { HttpError, type FailureKind } from '../../src/http-policy/index.js';

/**
 * What went wrong with Salesforce, as the engine and a person need it:
 * - `auth`: the token endpoint refused the credentials (names the config key to fix);
 * - `setup`: the org lacks what the README's one-time setup creates (names the field and step);
 * - `allocation`: the API allocation is used up past `limits.maxWaitSeconds` (says when it goes on);
 * - `refused`: Salesforce refused a request as malformed (its `errorCode` and message);
 * - `transient`: 5xx, network errors and locks that outlived the retries.
 */
type SalesforceErrorKind = 'auth' | 'setup' | 'allocation' | 'refused' | 'transient';

/** Each Salesforce problem in the exchange's one failure vocabulary, which the engine reads. */
const FAILURE_KIND: Readonly<Record<SalesforceErrorKind, FailureKind>> = {
  auth: 'auth',
  setup: 'invalid',
  allocation: 'daily_limit',
  refused: 'invalid',
  transient: 'transient',
};

/** The one HTTP error type ({@link HttpError}, service `salesforce`) with Salesforce's own fields. */
export class SalesforceError extends HttpError {
  override readonly name = 'SalesforceError';
  /** What went wrong in Salesforce's terms (above); `kind` is the same in the shared vocabulary. */
  readonly problem: SalesforceErrorKind;
  /** Salesforce's `errorCode` (`REQUEST_LIMIT_EXCEEDED`, `INVALID_FIELD`, …) or OAuth `error`, when it gave one. */
  readonly errorCode: string | undefined;
  /** When writing can go on (`allocation`), epoch ms. */
  readonly resumeAt: number | undefined;

  constructor(problem: SalesforceErrorKind, message: string, details: { errorCode?: string; status?: number; resumeAt?: number } = {}, options?: ErrorOptions) {
    super(message, {
      service: 'salesforce',
      kind: FAILURE_KIND[problem],
      code: `SALESFORCE_${problem.toUpperCase()}`,
      status: details.status,
      ...(details.resumeAt === undefined ? {} : { retryAfterMs: Math.max(0, details.resumeAt - Date.now()) }),
      ...(options?.cause === undefined ? {} : { cause: options.cause }),
    });
    this.problem = problem;
    this.errorCode = details.errorCode;
    this.resumeAt = details.resumeAt;
  }
}

/** True for a {@link SalesforceError}, also across module copies (by name). */
export function isSalesforceError(error: unknown): error is SalesforceError {
  return error instanceof SalesforceError || (error instanceof Error && error.name === 'SalesforceError' && 'problem' in error);
}

/** `[{ errorCode, message }]` (REST) or `{ error, error_description }` (OAuth) → code and message. */
export function salesforceProblem(body: unknown): { errorCode: string | undefined; message: string | undefined } {
  const first = Array.isArray(body) ? (body[0] as unknown) : body;
  if (typeof first !== 'object' || first === null) return { errorCode: undefined, message: undefined };
  const record = first as Record<string, unknown>;
  const errorCode = typeof record.errorCode === 'string' ? record.errorCode : typeof record.error === 'string' ? record.error : undefined;
  const message = typeof record.message === 'string' ? record.message : typeof record.error_description === 'string' ? record.error_description : undefined;
  return { errorCode, message };
}
