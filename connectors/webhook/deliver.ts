import type { Logger } from 'pino';
import { readAcknowledgement, type Acknowledgement } from './acknowledgement.js';
import { send, servicePolicy } from '../../src/http/index.js';
import type { ExchangeDecision, ExchangeOutcome } from '../../src/http/index.js';
import { createRedactor, forTerminal } from '../../src/base/redact/index.js';
import { classifyDelivery, WEBHOOK_TRAITS } from './classify-delivery.js';
import type { WebhookRetryConfig } from './config.js';
import type { PreparedDelivery } from './payload.js';
import { attemptResult, MAX_ANSWER_BYTES, signedPost, type PostOptions } from './post-batch.js';
import { WebhookDeliveryError, describeEndpoint } from './webhook-errors.js';

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
