import { HttpError } from '../../src/http/index.js';

/**
 * A batch could not be delivered in this write: the checkpoint did not move and the engine should
 * run the batch again later. `kind` follows the engine's error kinds: `transient` (attempts
 * exhausted on 5xx, timeouts, network errors), `rate_limited` (the receiver asked for a wait longer
 * than `retry.maxDelayMs`; see `retryAfterMs`), `invalid` (the request could not be made at all).
 * The message names the receiver by origin and path only; never the secret, query or headers.
 */
export class WebhookDeliveryError extends HttpError<'transient' | 'rate_limited' | 'invalid'> {
  override readonly name = 'WebhookDeliveryError';
  override readonly code = 'WEBHOOK_DELIVERY_FAILED';
  readonly attempts: number;

  constructor(message: string, details: { kind: WebhookDeliveryError['kind']; attempts: number; retryAfterMs?: number; cause?: unknown }) {
    super(message, { service: 'webhook', code: 'WEBHOOK_DELIVERY_FAILED', ...details });
    this.attempts = details.attempts;
  }
}

/** The receiver as it may appear in logs and errors: no credentials, no query string. */
export function describeEndpoint(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
