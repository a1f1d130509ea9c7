import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { headerValue, send, servicePolicy } from '../../src/http/index.js';
import type { ExchangeDecision, ExchangeOutcome, ExchangeRequest } from '../../src/http/index.js';
import { createRedactor, forTerminal } from '../../src/base/redact/index.js';
import { readAcknowledgement, type Acknowledgement } from './acknowledgement.js';
import { classifyDelivery, WEBHOOK_TRAITS, type AttemptResult } from './classify-delivery.js';
import type { WebhookRetryConfig } from './config.js';
import { WebhookDeliveryError, describeEndpoint } from './errors.js';
import type { PreparedDelivery } from './mapping.js';
import { signWebhookPayload } from './sign.js';

interface DeliverOptions extends PostOptions {
  readonly retry: WebhookRetryConfig;
  readonly logger: Logger;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
}

/** How a delivery ended when it did not throw. */
type DeliveryOutcome =
  | { readonly delivered: true; readonly attempts: number; readonly acknowledgement: Acknowledgement }
  | { readonly delivered: false; readonly attempts: number; readonly reason: string };

/**
 * Sends one batch, as one exchange (`send()` of `src/http`: one deadline per attempt, the
 * answer's first 16 KiB, redaction), until the receiver acknowledges (2xx) or refuses it for good (other 4xx).
 * Throws {@link WebhookDeliveryError} when retries run out, when the receiver asks to wait longer
 * than `retry.maxDelayMs`, or when the request cannot be made; the caller then keeps its checkpoint.
 */
export async function deliver(delivery: PreparedDelivery, options: DeliverOptions): Promise<DeliveryOutcome> {
  const endpoint = describeEndpoint(options.url);
  const context = { batchId: delivery.payload.batch_id, records: delivery.payload.records.length };
  const policy = servicePolicy(WEBHOOK_TRAITS, options.retry);
  // A receiver may echo the signing secret or a configured header (its own credential) back.
  const redact = createRedactor([options.secret, ...Object.values(options.headers)]);
  const clean = (text: string): string => redact(forTerminal(text));
  const decide = (outcome: ExchangeOutcome, attempt: number): ExchangeDecision<DeliveryOutcome> => {
    const result = attemptResult(outcome);
    const decision = classifyDelivery(result, { nowMs: options.now(), policy, retry: attempt, random: options.random(), clean });
    const cause = 'error' in result ? result.error : undefined;
    switch (decision.action) {
      case 'delivered': {
        const records = delivery.payload.records.length;
        const acknowledgement = 'status' in result ? readAcknowledgement(records, result.replayed, result.body) : { written: records, unchanged: 0 };
        return { action: 'accept', value: { delivered: true, attempts: attempt, acknowledgement } };
      }
      case 'reject':
        return { action: 'accept', value: { delivered: false, attempts: attempt, reason: decision.reason } };
      case 'fail':
        return { action: 'fail', error: new WebhookDeliveryError(`${decision.reason} (${endpoint})`, { kind: 'invalid', attempts: attempt, cause }) };
      case 'retry': {
        const { reason } = decision;
        if (decision.retryAfterMs !== undefined && decision.retryAfterMs > options.retry.maxDelayMs) {
          const error = new WebhookDeliveryError(`${endpoint}: ${reason}; asked to wait ${decision.retryAfterMs} ms`, {
            kind: 'rate_limited',
            attempts: attempt,
            retryAfterMs: decision.retryAfterMs,
            cause,
          });
          return { action: 'fail', error };
        }
        if (attempt >= options.retry.maxAttempts) {
          return {
            action: 'fail',
            error: new WebhookDeliveryError(`${endpoint}: gave up after ${attempt} attempts: ${reason}`, { kind: 'transient', attempts: attempt, cause }),
          };
        }
        const { waitMs } = decision;
        options.logger.warn({ ...context, attempt, waitMs, reason }, 'webhook delivery failed; retrying');
        return { action: 'retry', waitMs };
      }
    }
  };
  return send<DeliveryOutcome>({
    dispatcher: options.dispatcher,
    timeoutMs: options.timeoutMs,
    maxBodyBytes: MAX_ANSWER_BYTES,
    overflow: 'cut',
    redact,
    sleep: (ms) => options.sleep(ms),
    request: () => signedPost(delivery, options),
    decide,
  });
}

interface PostOptions {
  readonly url: string;
  readonly secret: string;
  readonly timeoutMs: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly dispatcher: Dispatcher;
  /** Current time in milliseconds; the signature timestamp is taken from it on every attempt. */
  readonly now: () => number;
}

/** Enough of a response body for a dead-letter reason or an acknowledgement; the rest is discarded unread. */
const MAX_ANSWER_BYTES = 16 * 1024;

/**
 * One attempt's signed POST. Built afresh for every attempt, so a late retry still carries a
 * timestamp the receiver accepts.
 */
function signedPost(delivery: PreparedDelivery, options: PostOptions): ExchangeRequest {
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
function attemptResult(outcome: ExchangeOutcome): AttemptResult {
  if (!('response' in outcome)) return { error: outcome.error };
  const { status, headers, body } = outcome.response;
  return {
    status,
    retryAfter: headerValue(headers, 'retry-after'),
    replayed: headerValue(headers, 'idempotent-replayed'),
    body: body.toString('utf8'),
  };
}
