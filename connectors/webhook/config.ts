import { z } from 'zod';
import { retrySchema, type RetryPolicy } from '../../src/http/index.js';
import { stateStoreConfigSchema } from '../state-stores/index.js';

/** Headers the connector sets itself; a configured header may not replace them. */
const reservedHeaders: readonly string[] = Object.freeze(['content-type', 'content-length', 'idempotency-key', 'x-callsync-timestamp', 'x-callsync-signature']);

/**
 * Retry policy for 5xx, 429, network errors and timeouts: attempts per batch including the first
 * (8, at most 100), backoff 500 ms doubling to 30 s; `maxDelayMs` is also the longest
 * `Retry-After` waited inside one write.
 */
const webhookRetrySchema = retrySchema({ maxAttempts: 8, maxAttemptsCeiling: 100 });

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The `sink:` section for `type: webhook`. Unknown keys are an error that names them. */
export const webhookConfigSchema = z.strictObject({
  type: z.literal('webhook'),
  /** Receiver endpoint; http or https. */
  url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }),
  /** HMAC-SHA256 signing key shared with the receiver; at least 16 characters. Never logged. */
  secret: z.string().min(16, { error: 'must be at least 16 characters' }),
  /**
   * Where checkpoints, dead letters and the copy of delivered records are kept: a SQL database, configured as its sink would be.
   * @defaultValue `{ type: 'sqlite', path: './data/webhook-state.db' }`
   */
  state: stateStoreConfigSchema.default({ type: 'sqlite', path: './data/webhook-state.db' }),
  /** Bound on one whole attempt (connect, headers and body). @defaultValue 10000 */
  timeoutMs: z.int().min(1).default(10_000),
  /** Records per POST; the engine splits larger pages. @defaultValue 500 */
  batchSize: z.int().min(1).max(500).default(500),
  /** Extra headers sent with every POST (for example a receiver's own auth token). */
  headers: z
    .record(z.string().regex(headerName, { error: 'not a valid header name' }), z.string())
    .refine((headers) => Object.keys(headers).every((name) => !reservedHeaders.includes(name.toLowerCase())), {
      error: `may not set ${reservedHeaders.join(', ')}`,
    })
    .optional(),
  retry: webhookRetrySchema,
  /**
   * What to do when `state` was used with another `url`: `refuse` (exit 2 naming both) or `adopt`
   * (the new receiver takes over the old state). Start fresh by pointing `state` at a new database.
   * @defaultValue 'refuse'
   */
  onEndpointChange: z.enum(['refuse', 'adopt']).default('refuse'),
});

export type WebhookConfig = z.output<typeof webhookConfigSchema>;
export type WebhookRetryConfig = RetryPolicy;
