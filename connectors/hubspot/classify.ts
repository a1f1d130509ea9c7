import type { HubSpotRetryPolicy } from './config.js';

/** What went wrong with a HubSpot request, as far as the caller must act on it. */
export type HubSpotErrorKind =
  | 'auth'
  | 'forbidden'
  | 'rate_limited'
  | 'daily_limit'
  | 'transient'
  | 'invalid'
  | 'conflict'
  | 'not_found'
  | 'internal';

/** One failed attempt: an HTTP answer that was not 2xx, or the error thrown instead of one. */
export type HubSpotFailure =
  | {
      readonly status: number;
      /** Parsed JSON body, or undefined when it was empty or not JSON. */
      readonly body: unknown;
      /** Response headers with lower-case names. */
      readonly headers: Readonly<Record<string, string | undefined>>;
    }
  | { readonly error: unknown };

export interface FailureContext {
  /** 1 for the first retry. */
  readonly retry: number;
  readonly policy: HubSpotRetryPolicy;
  /** A number in [0, 1) for jitter; injected so the function stays pure. */
  readonly random: number;
  readonly nowMs: number;
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

// Connection-level failures that a later attempt can get past.
const transientCodes = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/**
 * The one place that decides what a HubSpot failure means. 429 by `policyName`: DAILY stops
 * (no retry: the portal's quota is gone until HubSpot resets it), SECONDLY waits a second,
 * TEN_SECONDLY_ROLLING waits the advertised interval; `Retry-After` wins when present.
 * 5xx and network errors retry with full-jitter backoff. 400/409 are batch rejections,
 * 401/403/404 and anything else stop.
 */
export function classifyHubSpotFailure(failure: HubSpotFailure, context: FailureContext): Classification {
  if ('error' in failure) return classifyError(failure.error, context);
  const { status, headers } = failure;
  const body = bodyFields(failure.body);
  const detail = [body.category ?? body.errorType, body.policyName].filter((part) => part !== undefined).join(' ');
  const reason = `HTTP ${status}${detail === '' ? '' : ` ${detail}`}${body.message === undefined ? '' : `: ${body.message}`}`;
  const base = { reason, hubspotMessage: body.message, correlationId: body.correlationId, policyName: body.policyName };
  const stop = (kind: HubSpotErrorKind, batchRejection = false): Classification => ({ ...base, kind, retry: false, waitMs: 0, batchRejection });
  const again = (kind: HubSpotErrorKind, waitMs: number): Classification => ({ ...base, kind, retry: true, waitMs: Math.round(waitMs), batchRejection: false });

  if (status === 429) {
    const policy = body.policyName?.toUpperCase();
    if (policy === 'DAILY') return stop('daily_limit');
    const retryAfter = parseRetryAfter(headers['retry-after'], context.nowMs);
    const jitter = context.random * context.policy.baseDelayMs;
    if (retryAfter !== undefined) return again('rate_limited', retryAfter + jitter);
    if (policy === 'SECONDLY') return again('rate_limited', 1000 + jitter);
    if (policy === 'TEN_SECONDLY_ROLLING') {
      const interval = positiveInt(headers['x-hubspot-ratelimit-interval-milliseconds']) ?? 10_000;
      return again('rate_limited', interval + jitter);
    }
    return again('rate_limited', Math.max(1000, backoff(context)));
  }
  if (status >= 500 || status === 408) return again('transient', backoff(context));
  if (status === 401) return stop('auth');
  if (status === 403) return stop('forbidden');
  if (status === 404) return stop('not_found');
  if (status === 409) return stop('conflict', true);
  if (status === 400 || status === 422) return stop('invalid', true);
  return stop('invalid');
}

/** Full-jitter exponential backoff: uniform in [0, min(maxDelayMs, baseDelayMs · 2^(retry-1))). */
export function backoff(context: FailureContext): number {
  const ceiling = Math.min(context.policy.maxDelayMs, context.policy.baseDelayMs * 2 ** Math.max(0, context.retry - 1));
  return Math.floor(context.random * ceiling);
}

/** `Retry-After` as delta-seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

interface BodyFields {
  message?: string;
  category?: string;
  errorType?: string;
  policyName?: string;
  correlationId?: string;
}

/** Whitelist of HubSpot error body fields; nothing else of a body reaches an error or a log. */
export function bodyFields(body: unknown): BodyFields {
  if (typeof body !== 'object' || body === null) return {};
  const record = body as Record<string, unknown>;
  const fields: BodyFields = {};
  for (const key of ['message', 'category', 'errorType', 'policyName', 'correlationId'] as const) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') fields[key] = value.length > 1000 ? `${value.slice(0, 1000)}…` : value;
  }
  return fields;
}

function classifyError(error: unknown, context: FailureContext): Classification {
  const { code, name, message } = describe(error);
  const label = code ?? name ?? 'Error';
  const base = { reason: `request failed: ${label}: ${message}`, hubspotMessage: undefined, correlationId: undefined, policyName: undefined, batchRejection: false };
  const transient = (code !== undefined && transientCodes.has(code)) || name === 'TimeoutError' || name === 'AbortError';
  if (transient) return { ...base, kind: 'transient', retry: true, waitMs: backoff(context) };
  return { ...base, kind: 'internal', retry: false, waitMs: 0 };
}

function describe(error: unknown): { code?: string; name?: string; message: string } {
  if (typeof error !== 'object' || error === null) return { message: String(error) };
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  return {
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof name === 'string' ? { name } : {}),
    message: typeof message === 'string' ? message : Object.prototype.toString.call(error),
  };
}

function positiveInt(value: string | undefined): number | undefined {
  const number = Number(value);
  return value !== undefined && Number.isInteger(number) && number > 0 ? number : undefined;
}
