import { createHmac } from 'node:crypto';

/** The signature scheme version; receivers compare the whole `v1=<hex>` value. */
const signatureVersion = 'v1';

/**
 * Signs one delivery attempt: `v1=` + hex HMAC-SHA256 of `${timestamp}.${body}` under `secret`.
 * The timestamp is part of the signed text so a captured request cannot be replayed later.
 */
export function signWebhookPayload(secret: string, timestamp: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
  return `${signatureVersion}=${digest}`;
}
