import { createHmac, timingSafeEqual } from 'node:crypto';

interface VerifyWebhookSignatureInput {
  /** The shared secret configured as `sink.secret`. */
  readonly secret: string;
  /** The `X-Callsync-Timestamp` header (unix seconds). */
  readonly timestamp: string | undefined;
  /** The request body exactly as received, before any JSON parsing. */
  readonly body: string | Buffer;
  /** The `X-Callsync-Signature` header (`v1=<hex>`). */
  readonly signature: string | undefined;
  /** Largest accepted distance between `timestamp` and `now`. @defaultValue 300 (5 minutes) */
  readonly toleranceSeconds?: number;
  /** Current time in milliseconds. @defaultValue Date.now() */
  readonly now?: number;
}

/**
 * True when the signature matches and the timestamp is within the tolerance (either side, for
 * clock skew). This is the function the README shows receivers; the test receiver uses it.
 */
// readme-snippet:start
export function verifyWebhookSignature({ secret, timestamp, body, signature, toleranceSeconds = 300, now = Date.now() }: VerifyWebhookSignatureInput): boolean {
  if (timestamp === undefined || signature === undefined || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(now / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = 'v1=' + createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
  const a = Buffer.from(expected);
  const b = Buffer.from(signature);
  return a.length === b.length && timingSafeEqual(a, b);
}
// readme-snippet:end
