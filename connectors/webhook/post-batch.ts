import type { Dispatcher } from 'undici';
import type { ExchangeOutcome, ExchangeRequest } from '../../src/http/index.js';
import type { AttemptResult } from './classify-delivery.js';
import type { PreparedDelivery } from './payload.js';
import { signWebhookPayload } from './sign.js';

export interface PostOptions {
  readonly url: string;
  readonly secret: string;
  readonly timeoutMs: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly dispatcher: Dispatcher;
  /** Current time in milliseconds; the signature timestamp is taken from it on every attempt. */
  readonly now: () => number;
}

/** Enough of a response body for a dead-letter reason or an acknowledgement; the rest is discarded unread. */
export const MAX_ANSWER_BYTES = 16 * 1024;

/**
 * One attempt's signed POST. Built afresh for every attempt, so a late retry still carries a
 * timestamp the receiver accepts.
 */
export function signedPost(delivery: PreparedDelivery, options: PostOptions): ExchangeRequest {
  const timestamp = Math.floor(options.now() / 1000);
  return {
    url: new URL(options.url),
    method: 'POST',
    headers: {
      ...options.headers,
      'content-type': 'application/json',
      'idempotency-key': delivery.idempotencyKey,
      'x-callsync-timestamp': String(timestamp),
      'x-callsync-signature': signWebhookPayload(options.secret, timestamp, delivery.body),
    },
    body: delivery.body,
  };
}

/** What an exchange attempt produced, as the delivery classifier reads it (any failure is `{ error }`). */
export function attemptResult(outcome: ExchangeOutcome): AttemptResult {
  if (!('response' in outcome)) return { error: outcome.error };
  const { status, headers, body } = outcome.response;
  return {
    status,
    retryAfter: firstHeader(headers['retry-after']),
    replayed: firstHeader(headers['idempotent-replayed']),
    body: body.toString('utf8'),
  };
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
