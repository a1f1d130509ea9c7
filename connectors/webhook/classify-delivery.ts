/** What one HTTP attempt produced: a response, or the error that replaced it. */
export type AttemptResult =
  | {
      readonly status: number;
      readonly retryAfter?: string | undefined;
      readonly body?: string | undefined;
      /** The `Idempotent-Replayed` header of a 2xx. */
      readonly replayed?: string | undefined;
    }
  | { readonly error: unknown };

/** What to do next with the batch. */
export type DeliveryDecision =
  | { readonly action: 'delivered' }
  /** Send again; `retryAfterMs` is the receiver's own wait (429/503 `Retry-After`) when it gave one. */
  | { readonly action: 'retry'; readonly reason: string; readonly retryAfterMs?: number }
  /** The receiver refused this batch for good: its records become dead letters. */
  | { readonly action: 'reject'; readonly reason: string }
  /** Not the receiver's answer but our own failure (bad argument, mock not matched): throw. */
  | { readonly action: 'fail'; readonly reason: string };

/** Longest response excerpt kept in a dead letter's reason. */
export const maxReasonBodyChars = 500;

// Connection-level failures that a later attempt can get past.
const transientCodes = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  'ENETDOWN', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CLOSED', 'UND_ERR_ABORTED', 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);
const timeoutNames = new Set(['TimeoutError', 'AbortError', 'ConnectTimeoutError', 'HeadersTimeoutError', 'BodyTimeoutError']);

/**
 * The one place that decides how a delivery attempt ends. 2xx: delivered. 5xx, 408 and 429:
 * retry (honouring `Retry-After`). Any other status: reject, with the status and the first
 * 500 characters of the response as the reason. Network errors and timeouts: retry; any other
 * thrown error is a bug on our side and fails the write.
 */
export function classifyDelivery(attempt: AttemptResult, nowMs: number): DeliveryDecision {
  if ('error' in attempt) return classifyError(attempt.error);
  const { status } = attempt;
  if (status >= 200 && status < 300) return { action: 'delivered' };
  const reason = `webhook receiver answered HTTP ${status}${excerpt(attempt.body)}`;
  if (status >= 500 || status === 429 || status === 408) {
    const retryAfterMs = parseRetryAfter(attempt.retryAfter, nowMs);
    return retryAfterMs === undefined ? { action: 'retry', reason } : { action: 'retry', reason, retryAfterMs };
  }
  return { action: 'reject', reason };
}

/** `Retry-After` as delta-seconds or an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Date.parse reads bare numbers such as "-1" or "1.5" as dates; an HTTP date always names its month.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function classifyError(error: unknown): DeliveryDecision {
  const { code, name, message } = describe(error);
  const label = code ?? name ?? 'Error';
  if ((code !== undefined && transientCodes.has(code)) || (name !== undefined && timeoutNames.has(name))) {
    return { action: 'retry', reason: `webhook request failed: ${label}: ${message}` };
  }
  return { action: 'fail', reason: `webhook request could not be made: ${label}: ${message}` };
}

function describe(error: unknown): { code?: string; name?: string; message: string } {
  if (typeof error !== 'object' || error === null) return { message: String(error) };
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  return {
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof name === 'string' ? { name } : {}),
    message: typeof message === 'string' ? message : 'no message',
  };
}

function excerpt(body: string | undefined): string {
  const text = body?.trim() ?? '';
  if (text === '') return '';
  return `: ${text.length > maxReasonBodyChars ? `${text.slice(0, maxReasonBodyChars)}…` : text}`;
}
