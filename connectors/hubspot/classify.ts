import { classifyHttp, servicePolicy, type ServiceTraits } from '../../src/http/index.js';
import type { FailureKind, FlatHeaders, HttpFailureKind } from '../../src/http/index.js';
import { truncate } from '../../src/base/redact/index.js';
import type { HubSpotRetryPolicy } from './config.js';

/** HubSpot: at least a second after an unexplained 429; server waits get jitter (portal-wide limits). */
export const HUBSPOT_TRAITS: ServiceTraits = {
  service: 'hubspot',
  maxWaitKey: 'the 15-minute wait cap',
  minRateLimitWaitMs: 1_000,
  jitterServerWaits: true,
  abortIsTransient: true,
  retryUnknownErrors: false,
};

/** What went wrong with a HubSpot request, as far as the caller must act on it: the kinds of the one vocabulary HubSpot can meet. */
export type HubSpotErrorKind = Extract<
  FailureKind,
  'auth' | 'forbidden' | 'rate_limited' | 'daily_limit' | 'transient' | 'invalid' | 'conflict' | 'not_found' | 'internal'
>;

/** One failed attempt: an HTTP answer that was not 2xx, or the error thrown instead of one. */
export type HubSpotFailure =
  | {
      readonly status: number;
      /** Parsed JSON body, or undefined when it was empty or not JSON. */
      readonly body: unknown;
      /** Response headers with lower-case names. */
      readonly headers: FlatHeaders;
      /** Set on a 2xx whose body is not JSON: not an answer, a transient failure. */
      readonly bodyProblem?: 'not_json';
    }
  | { readonly error: unknown };

interface FailureContext {
  /** 1 for the first retry. */
  readonly retry: number;
  readonly policy: HubSpotRetryPolicy;
  /** A number in [0, 1) for jitter; injected so the function stays pure. */
  readonly random: number;
  readonly nowMs: number;
  /** Runs on every text from HubSpot (the redactor, control characters out) before it is cut. @defaultValue identity */
  readonly clean?: (text: string) => string;
}

export interface Classification {
  readonly kind: HubSpotErrorKind;
  /** Whether sending the same request again can succeed. */
  readonly retry: boolean;
  /** How long to wait before that retry; 0 when `retry` is false. */
  readonly waitMs: number;
  /** HubSpot refused the batch's content (400/409): splitting it finds the records at fault. */
  readonly batchRejection: boolean;
  /** Status, HubSpot category or policy, and HubSpot's own message; never headers or tokens. */
  readonly reason: string;
  readonly hubspotMessage: string | undefined;
  readonly correlationId: string | undefined;
  readonly policyName: string | undefined;
}

const KINDS: Partial<Record<HttpFailureKind, HubSpotErrorKind>> = {
  rate_limited: 'rate_limited',
  transient: 'transient',
  aborted: 'transient',
  auth: 'auth',
  forbidden: 'forbidden',
  not_found: 'not_found',
  conflict: 'conflict',
  bad_request: 'invalid',
};

/**
 * What a HubSpot failure means, by the shared HTTP policy (`src/http/`) with HubSpot's own
 * 429 policies: DAILY stops (no retry: the portal's quota is gone until HubSpot resets it),
 * SECONDLY waits a second, TEN_SECONDLY_ROLLING waits the advertised interval; `Retry-After` wins
 * when present, on any status. 5xx and network errors retry with full-jitter backoff. 400/409 are
 * batch rejections, 401/403/404 and anything else stop.
 */
export function classifyHubSpotFailure(failure: HubSpotFailure, context: FailureContext): Classification {
  const policy = servicePolicy(HUBSPOT_TRAITS, context.policy);
  const attempt = { nowMs: context.nowMs, attempt: context.retry, random: context.random };
  const clean = context.clean ?? ((text: string) => text);
  if ('error' in failure) {
    const verdict = classifyHttp(failure, policy, attempt);
    const base = {
      reason: clean(`request failed: ${verdict.label}: ${verdict.detail ?? ''}`),
      hubspotMessage: undefined,
      correlationId: undefined,
      policyName: undefined,
      batchRejection: false,
    };
    return verdict.retry ? { ...base, kind: 'transient', retry: true, waitMs: verdict.waitMs } : { ...base, kind: 'internal', retry: false, waitMs: 0 };
  }
  const { status, headers } = failure;
  const body = bodyFields(failure.body, clean);
  const detail = [body.category ?? body.errorType, body.policyName].filter((part) => part !== undefined).join(' ');
  const said = failure.bodyProblem === undefined ? '' : ' with a body that is not JSON';
  const reason = `HTTP ${status}${said}${detail === '' ? '' : ` ${detail}`}${body.message === undefined ? '' : `: ${body.message}`}`;
  const base = { reason, hubspotMessage: body.message, correlationId: body.correlationId, policyName: body.policyName };
  const policyName = body.policyName?.toUpperCase();
  if (status === 429 && policyName === 'DAILY') return { ...base, kind: 'daily_limit', retry: false, waitMs: 0, batchRejection: false };
  const outcome = failure.bodyProblem === undefined ? { status, headers } : { status, headers, bodyProblem: 'bad_json' as const };
  const verdict = classifyHttp(outcome, policy, { ...attempt, ...documentedWait(policyName, headers) });
  const kind = KINDS[verdict.kind] ?? 'invalid';
  if (verdict.retry) return { ...base, kind, retry: true, waitMs: verdict.waitMs, batchRejection: false };
  return { ...base, kind, retry: false, waitMs: 0, batchRejection: verdict.kind === 'conflict' || verdict.kind === 'bad_request' };
}

function documentedWait(policyName: string | undefined, headers: Readonly<Record<string, string | undefined>>): { documentedWaitMs?: number } {
  if (policyName === 'SECONDLY') return { documentedWaitMs: 1000 };
  if (policyName === 'TEN_SECONDLY_ROLLING') return { documentedWaitMs: positiveInt(headers['x-hubspot-ratelimit-interval-milliseconds']) ?? 10_000 };
  return {};
}

interface BodyFields {
  message?: string;
  category?: string;
  errorType?: string;
  policyName?: string;
  correlationId?: string;
}

/** Whitelist of HubSpot error body fields; nothing else of a body reaches an error or a log. Cleaned, then cut. */
function bodyFields(body: unknown, clean: (text: string) => string): BodyFields {
  if (typeof body !== 'object' || body === null) return {};
  const record = body as Record<string, unknown>;
  const fields: BodyFields = {};
  for (const key of ['message', 'category', 'errorType', 'policyName', 'correlationId'] as const) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') fields[key] = truncate(clean(value), 1000);
  }
  return fields;
}

function positiveInt(value: string | undefined): number | undefined {
  const number = Number(value);
  return value !== undefined && Number.isInteger(number) && number > 0 ? number : undefined;
}

/** A verdict made without a HubSpot error body that stops at once: no retry, no wait, not one record's fault. */
export function stopAnswer(kind: HubSpotErrorKind, reason: string, policyName?: string): Classification {
  return { kind, retry: false, waitMs: 0, batchRejection: false, reason, hubspotMessage: undefined, correlationId: undefined, policyName };
}

/** An answer we cannot use (a setting HubSpot refuses, a property of the wrong kind): stop, do not retry. */
export function invalidAnswer(reason: string): Classification {
  return stopAnswer('invalid', reason);
}
