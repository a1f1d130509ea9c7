import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Redact } from '../../src/base/redact/index.js';
import { headerValue, send, servicePolicy, type ExchangeOutcome, type RetryPolicy, type Sleep } from '../../src/http/index.js';
import type { ObjectStore } from '../object-storage/index.js';
import { classifyAttempt, isMediaType, RECORDINGS_TRAITS } from './classify.js';
import { ArchiveStoreError } from './errors.js';
import { archiveKey, checksumObject, extensionOf, type RecordingRef } from './keys.js';

/** How one recording's download ended. */
export type RecordingOutcome =
  | { readonly state: 'archived'; readonly key: string; readonly sha256: string; readonly bytes: number; readonly contentType: string | undefined }
  | { readonly state: 'expired' | 'failed'; readonly reason: string };

/** What a download needs besides the recording; one set per archive pass. */
export interface DownloadOptions {
  /** Shared per process; tests pass a `MockAgent`. */
  readonly dispatcher: Dispatcher;
  readonly store: ObjectStore;
  readonly maxBytes: number;
  readonly allowHosts: readonly string[];
  /** One deadline per attempt, headers and body together. */
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  /** Longest wait a server's `Retry-After` may impose. */
  readonly maxWaitMs: number;
  /**
   * Headers the first request carries when the link is on `origin` (the API key, for links on the
   * API's own host); never sent to another origin, never on a redirect. @defaultValue none
   */
  readonly credentials?: { readonly origin: string; readonly headers: Readonly<Record<string, string>> } | undefined;
  /** The budget: awaited before every request, redirects included. @defaultValue none */
  readonly acquire?: ((url: URL) => Promise<void>) | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly redact?: Redact | undefined;
  /** @defaultValue an abortable timer */
  readonly sleep?: Sleep | undefined;
  /** @defaultValue `Date.now` */
  readonly now?: () => number;
  /** @defaultValue `Math.random` */
  readonly random?: () => number;
}

/** Bytes of an answer that is not a recording (an error page) read for its status; the rest is dropped unread. */
const ERROR_BODY_BYTES = 4_096;

/**
 * Streams one recording into the archive through the one exchange, its SHA-256 computed as it
 * flows: it becomes visible under its key only once whole (the store's put), the checksum beside
 * it after. Never throws for what the link answers (that is the outcome's `expired` or `failed`);
 * throws an `ArchiveStoreError` when storage fails, and the abort reason when `signal` aborts.
 */
export async function archiveRecording(ref: RecordingRef, options: DownloadOptions): Promise<RecordingOutcome> {
  const original = URL.canParse(ref.url) ? new URL(ref.url) : undefined;
  if (original === undefined || (original.protocol !== 'https:' && original.protocol !== 'http:'))
    return { state: 'failed', reason: 'the recording link is not an http(s) URL' };
  const policy = servicePolicy(RECORDINGS_TRAITS, options.retry, options.maxWaitMs);
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  let url = original;
  let redirects = 0;
  let retries = 0;
  let stored: Extract<RecordingOutcome, { state: 'archived' }> | undefined;
  const decide = (outcome: ExchangeOutcome) => {
    const context = { url, original, allowHosts: options.allowHosts, redirects, retries, maxAttempts: options.retry.maxAttempts, maxBytes: options.maxBytes };
    const verdict = classifyAttempt(outcome, { ...context, policy, nowMs: now(), random: random() });
    switch (verdict.next) {
      case 'stored':
        if (stored === undefined) throw new Error('a streamed answer left no stored recording');
        return { action: 'accept' as const, value: stored };
      case 'redirect':
        redirects += 1;
        url = verdict.url;
        return { action: 'retry' as const, waitMs: 0 };
      case 'retry':
        retries += 1;
        return { action: 'retry' as const, waitMs: verdict.waitMs };
      case 'fatal':
        return { action: 'fail' as const, error: verdict.error instanceof Error ? verdict.error : new Error(String(verdict.error)) };
      default:
        return { action: 'accept' as const, value: { state: verdict.next, reason: verdict.reason } };
    }
  };
  return send<RecordingOutcome>({
    dispatcher: options.dispatcher,
    timeoutMs: options.timeoutMs,
    maxBodyBytes: ERROR_BODY_BYTES,
    overflow: 'cut',
    signal: options.signal,
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
    ...(options.redact === undefined ? {} : { redact: options.redact }),
    acquire: () => options.acquire?.(url) ?? Promise.resolve(),
    request: () => {
      const credentials = redirects === 0 && options.credentials?.origin === url.origin ? options.credentials.headers : {};
      return { url, method: 'GET', headers: { accept: 'audio/*, application/octet-stream;q=0.5', ...credentials } };
    },
    streamBody: (head) => {
      const contentType = headerValue(head.headers, 'content-type');
      if (head.status < 200 || head.status >= 300 || !isMediaType(contentType)) return undefined;
      return {
        maxBytes: options.maxBytes,
        consume: async (body) => {
          stored = await storeRecording(options.store, archiveKey(ref, extensionOf(ref.url, contentType)), body, contentType);
        },
      };
    },
    decide,
  });
}

/**
 * Puts the body under `key` while hashing and counting it, with the checksum as its companion. A failure
 * of the body (the network, a size bound) is thrown as it is, a failure of the store as an
 * `ArchiveStoreError`: the first is the download's, the second stops the pass.
 */
async function storeRecording(
  store: ObjectStore,
  key: string,
  body: Readable,
  contentType: string | undefined,
): Promise<Extract<RecordingOutcome, { state: 'archived' }>> {
  const hash = createHash('sha256');
  let bytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.byteLength;
      done(null, chunk);
    },
  });
  let bodyError: unknown;
  // The store may start reading after an await of its own (a folder made first): an error before
  // then stays on the stream (`errored`), where its reader finds it, instead of going unheard.
  meter.on('error', () => undefined);
  body.once('error', (error) => {
    bodyError = error;
    meter.destroy(error);
  });
  body.pipe(meter);
  let sha256: string | undefined;
  // The checksum is asked for once the body is whole, and stored with the recording (one folder sync for both).
  const companion = () => {
    sha256 = hash.digest('hex');
    const checksum = checksumObject(key, sha256);
    return { key: checksum.key, bytes: Buffer.from(checksum.text), contentType: 'text/plain' };
  };
  try {
    await store.put(key, meter, { contentType: contentType ?? 'application/octet-stream', companion });
  } catch (error) {
    // The body's own failure (a reset, a size bound) is the download's: decide reads it as it is.
    if (bodyError instanceof Error) throw bodyError;
    throw new ArchiveStoreError(key, error);
  }
  if (sha256 === undefined) throw new ArchiveStoreError(key, new Error('the store did not ask for the checksum'));
  return { state: 'archived', key, sha256, bytes, contentType };
}
