import { z } from 'zod';
import { retrySchema } from '../../src/http/index.js';
import { objectStoreConfigSchema } from '../object-storage/index.js';

const MiB = 1024 * 1024;

/** A host name as a URL carries it: lower-case, no scheme, no path (`recordings.example.com`, `127.0.0.1:8080` with a port). */
const hostName = z
  .string()
  .regex(/^[a-z0-9.-]+(?::[0-9]{1,5})?$/i, { error: 'expected a host name such as "recordings.example.com" (no scheme, no path)' })
  .transform((host) => host.toLowerCase());

/**
 * The recordings host's own budget. Whether a download also takes one of the business's API
 * tokens is not said by the spec; the default (`countAgainstApi: true`) is the one that cannot
 * cause a 429 on the API, whichever way the service counts.
 */
const budgetSchema = z
  .strictObject({
    /** Downloads per minute from each recordings host: for the process in `backfill`, for every replica together in `run`. @defaultValue 60 */
    requestsPerMinute: z.int().positive().default(60),
    /** A download also takes a token of its business's `rateLimit` (the API's 60/min). @defaultValue true */
    countAgainstApi: z.boolean().default(true),
  })
  .prefault({});

/**
 * The `recordings:` section: every record's recording copied into storage the business owns.
 * Absent, nothing is archived. Unknown keys are an error that names them.
 */
export const recordingsConfigSchema = z.strictObject({
  /** Where recordings go: `{ type: folder, path }` or `{ type: s3, bucket, prefix, endpoint, … }` (as `sink.storage` of parquet). */
  archive: objectStoreConfigSchema,
  /** Largest recording kept; a longer one is `failed` (checked against `Content-Length` and again while it streams). @defaultValue 512 MiB */
  maxBytes: z
    .int()
    .positive()
    .default(512 * MiB),
  /** Hosts a recording link may redirect to (its own host needs no entry); the API key is never sent on a redirect. @defaultValue none */
  allowHosts: z.array(hostName).default([]),
  /**
   * Send the business's API key with links on the API's own origin (for a recordings host that
   * asks for it). Never to another host, never on a redirect. @defaultValue false: links are signed and need none
   */
  sendApiKey: z.boolean().default(false),
  /** Where the archive is served from (a CDN, a bucket website): `<publicBaseUrl>/<key>` is an archived recording's public link. @defaultValue none */
  publicBaseUrl: z
    .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  /**
   * Remove an archived recording (and its checksum) when its record is marked deleted, which only
   * the reconcile's deletion guard does. @defaultValue false: kept
   */
  deleteWithRecord: z.boolean().default(false),
  budget: budgetSchema,
  /** Downloads in flight at once, for the whole process. @defaultValue 2 */
  concurrency: z.int().min(1).max(64).default(2),
  /** One deadline per download attempt, headers and body together (a large file on a slow link needs long). @defaultValue 10 minutes */
  timeoutMs: z.int().positive().default(600_000),
  /** Attempts per download, including the first, for 5xx, 429 and broken connections (`Retry-After` honoured). */
  retry: retrySchema({ maxAttempts: 5 }),
});
