import { request, type Dispatcher } from 'undici';
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

// Enough of a response body for a dead-letter reason or an acknowledgement; the rest is discarded unread.
const maxBodyBytes = 16 * 1024;

/**
 * One signed POST attempt. Never throws: a failure comes back as `{ error }` for the classifier.
 * Each attempt is signed afresh so a late retry still carries a timestamp the receiver accepts.
 */
export async function postBatch(delivery: PreparedDelivery, options: PostOptions): Promise<AttemptResult> {
  const timestamp = Math.floor(options.now() / 1000);
  try {
    const response = await request(options.url, {
      dispatcher: options.dispatcher,
      method: 'POST',
      headers: {
        ...options.headers,
        'content-type': 'application/json',
        'idempotency-key': delivery.idempotencyKey,
        'x-callsync-timestamp': String(timestamp),
        'x-callsync-signature': signWebhookPayload(options.secret, timestamp, delivery.body),
      },
      body: delivery.body,
      signal: AbortSignal.timeout(options.timeoutMs),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    const body = await readBounded(response.body);
    const { headers } = response;
    return {
      status: response.statusCode,
      retryAfter: firstHeader(headers['retry-after']),
      replayed: firstHeader(headers['idempotent-replayed']),
      body,
    };
  } catch (error) {
    return { error };
  }
}

async function readBounded(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= maxBodyBytes) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, maxBodyBytes).toString('utf8');
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
