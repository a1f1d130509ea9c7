import { classifyHttp } from '../../src/http/index.js';
import type { ServicePolicy, ServiceTraits } from '../../src/http/index.js';
import { truncate } from '../../src/base/redact/index.js';

/** A webhook receiver: attempts are timed out by signal, so an abort is a timeout to retry. */
export const WEBHOOK_TRAITS: ServiceTraits = {
  service: 'webhook',
  maxWaitKey: 'the 15-minute wait cap',
  abortIsTransient: true,
  retryUnknownErrors: false,
};

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
  /** Send again after `waitMs`; `retryAfterMs` is the receiver's own wait (`Retry-After`) when it gave one. */
  | { readonly action: 'retry'; readonly reason: string; readonly waitMs: number; readonly retryAfterMs?: number }
  /** The receiver refused this batch for good: its records become dead letters. */
  | { readonly action: 'reject'; readonly reason: string }
  /** Not the receiver's answer but our own failure (bad argument, mock not matched): throw. */
  | { readonly action: 'fail'; readonly reason: string };

/** Longest response excerpt kept in a dead letter's reason. */
const maxReasonBodyChars = 500;

interface DeliveryContext {
  readonly nowMs: number;
  readonly policy: ServicePolicy;
  /** 1 for the first retry. @defaultValue 1 */
  readonly retry?: number;
  /** In [0, 1). @defaultValue 0 */
  readonly random?: number;
  /** Runs on every text from the receiver (the redactor, control characters out) before it is cut. @defaultValue identity */
  readonly clean?: (text: string) => string;
}

/**
 * How a delivery attempt ends, by the shared HTTP policy (`src/http/`). 2xx: delivered.
 * 5xx, 408 and 429: retry (honouring `Retry-After`). Any other status: reject, with the status and
 * the first 500 characters of the response as the reason. Network errors and timeouts: retry; any
 * other thrown error is a bug on our side and fails the write.
 */
export function classifyDelivery(attempt: AttemptResult, context: DeliveryContext): DeliveryDecision {
  if ('status' in attempt && attempt.status >= 200 && attempt.status < 300) return { action: 'delivered' };
  const outcome = 'error' in attempt ? attempt : { status: attempt.status, headers: { 'retry-after': attempt.retryAfter } };
  const verdict = classifyHttp(outcome, context.policy, { nowMs: context.nowMs, attempt: context.retry ?? 1, random: context.random ?? 0 });
  const clean = context.clean ?? ((text: string) => text);
  if ('error' in attempt) {
    const label = clean(`${verdict.label}: ${verdict.detail ?? 'no message'}`);
    return verdict.retry
      ? { action: 'retry', reason: `webhook request failed: ${label}`, waitMs: verdict.waitMs }
      : { action: 'fail', reason: `webhook request could not be made: ${label}` };
  }
  const reason = `webhook receiver answered HTTP ${attempt.status}${excerpt(attempt.body, clean)}`;
  if (!verdict.retry) return { action: 'reject', reason };
  const server = verdict.serverWaitMs === undefined ? {} : { retryAfterMs: verdict.serverWaitMs };
  return { action: 'retry', reason, waitMs: verdict.waitMs, ...server };
}

// Cleaned before the cut: a secret cut in half would no longer match the redactor.
function excerpt(body: string | undefined, clean: (text: string) => string): string {
  const text = clean(body ?? '').trim();
  return text === '' ? '' : `: ${truncate(text, maxReasonBodyChars)}`;
}
