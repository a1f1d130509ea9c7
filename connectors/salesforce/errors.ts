import { HttpError, type FailureKind } from '../../src/http/index.js';

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
  /** What the operator does about it, naming the `sink.` key to change (the CLI prints it after `fix:`). */
  readonly fix: string;

  constructor(
    problem: SalesforceErrorKind,
    message: string,
    details: { errorCode?: string; status?: number; resumeAt?: number; fix?: string } = {},
    options?: ErrorOptions,
  ) {
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
    this.fix = details.fix ?? salesforceFix(problem, details.status, details.errorCode);
  }
}

/** Statuses and codes of an org or user that may not use the API or write Tasks. */
const ACCESS_CODES: ReadonlySet<string> = new Set([
  'API_DISABLED_FOR_ORG',
  'API_CURRENTLY_DISABLED',
  'INSUFFICIENT_ACCESS',
  'INSUFFICIENT_ACCESS_OR_READONLY',
  'FUNCTIONALITY_NOT_ENABLED',
]);

/**
 * The fix of a Salesforce failure when the place that raised it knows no better one (a token
 * refusal, a missing field name their key themselves): every answer names the `sink.` key that
 * changes the outcome. Pure; table-tested.
 */
export function salesforceFix(problem: SalesforceErrorKind, status: number | undefined, errorCode: string | undefined): string {
  switch (problem) {
    case 'auth':
      return status === 401
        ? "Salesforce refused a new session at once: check that the integration user (sink.auth.username, or the connected app's Run As user) is active and the app allows the api scope (connectors/salesforce/README.md, one-time org setup, step 2)"
        : 'check sink.auth (consumerKey, username and privateKeyPath, or consumerSecret) against the connected app, and sink.loginUrl (connectors/salesforce/README.md, one-time org setup, step 2)';
    case 'setup':
      return 'create or correct the Task fields named by sink.externalIdField, sink.recordField, sink.recordingUrlField and sink.mapping.fields (connectors/salesforce/README.md, one-time org setup, step 3)';
    case 'allocation':
      return "writing goes on by itself when the window has room; to give callsync more of the org's allocation raise sink.limits.share (or sink.limits.requestsPer24h), or let it wait longer with sink.limits.maxWaitSeconds";
    case 'refused':
      if (status === 403 || (errorCode !== undefined && ACCESS_CODES.has(errorCode)))
        return "give the integration user (sink.auth.username, or the connected app's Run As user) API access and edit access to Tasks (connectors/salesforce/README.md, one-time org setup)";
      if (status === 404 || errorCode === 'NOT_FOUND' || errorCode === 'UNSUPPORTED_API_VERSION')
        return 'set sink.apiVersion to a version the org offers (46.0 or later)';
      return 'Salesforce refused the request as sent: check that sink.mapping.fields, sink.recordField and sink.recordingUrlField name Task fields of the right type, and sink.apiVersion; the message says what it refused';
    case 'transient':
      return 'Salesforce did not answer in full within sink.retry.maxAttempts attempts; run again (it resumes), or raise sink.retry.maxAttempts and sink.retry.maxDelayMs to ride out a longer outage';
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
