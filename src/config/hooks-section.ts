import { z } from 'zod';
import { durationMs } from './sections.js';

const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'expected an HTTP header name such as x-webhook-signature')
  // node:http gives header names in lower case.
  .transform((name) => name.toLowerCase());

/**
 * How a delivery proves it came from upstream. The call-tracking spec names webhooks but no
 * signature scheme, so every part is configurable; the defaults are the common HMAC shape
 * (hex SHA-256 of `timestamp.body` in one header, the Unix time in another).
 */
const hookSignatureSchema = z.strictObject({
  header: headerName.default('x-webhook-signature'),
  algorithm: z.enum(['sha256', 'sha1']).default('sha256'),
  encoding: z.enum(['hex', 'base64']).default('hex'),
  // Text before the digest in the header, e.g. "sha256=" (GitHub's form).
  prefix: z.string().default(''),
  // false: the body alone is signed and no replay window applies.
  timestampHeader: z.union([z.literal(false), headerName]).default('x-webhook-timestamp'),
  tolerance: durationMs('5m'),
});

/** Where the business comes from on `POST {path}` without a name: a header or a top-level payload field. */
const businessFromSchema = z.union([z.strictObject({ header: headerName }), z.strictObject({ field: z.string().min(1) })], {
  error: 'expected { header: NAME } or { field: NAME }',
});

/** The webhook receiver of `run` (docs/operations.md "Webhooks"); absent, `run` receives none. */
export const hooksSchema = z.strictObject({
  // Its own port; absent, the receiver is a route of the operators' server (`server.port`).
  port: z.int().min(0).max(65_535).optional(),
  host: z.string().min(1).default('127.0.0.1'),
  path: z
    .string()
    .regex(/^\/[A-Za-z0-9_\-./]*[A-Za-z0-9_-]$/, 'expected a path such as /hooks (no trailing "/")')
    .default('/hooks'),
  auth: z.enum(['hmac', 'token']).default('hmac'),
  // The global HMAC secret (or shared token); a business's `webhookSecret` takes precedence.
  secret: z.string().min(1).optional(),
  signature: hookSignatureSchema.prefault({}),
  // With auth: token, the header carrying it ("Authorization: Bearer <token>" or the bare token).
  tokenHeader: headerName.default('authorization'),
  businessFrom: businessFromSchema.optional(),
  // A top-level payload field whose value `streamMap` maps to the one stream to sync.
  streamField: z.string().min(1).optional(),
  streamMap: z.record(z.string(), z.string().min(1)).default({}),
  // A burst's first delivery starts a sync this long after it (its burst joins in); then at most
  // one more per stream every `minInterval`, whatever arrives meanwhile.
  debounce: durationMs('250ms'),
  minInterval: durationMs('1s'),
  maxBodyBytes: z.int().positive().default(1_048_576),
  // The receiver faces the internet: deliveries in progress (connections on its own port), in all
  // and per client address; bytes of bodies kept in memory at once; the time a body may take.
  maxConnections: z.int().positive().default(256),
  maxConnectionsPerClient: z.int().positive().default(64),
  maxBytesInFlight: z.int().positive().default(16_777_216),
  bodyTimeout: durationMs('10s'),
  // Per client address, in the receiver's memory.
  rateLimit: z.strictObject({ requests: z.int().positive().default(100), perMs: z.int().positive().default(1_000) }).prefault({}),
});
