import { BodyTooLargeError, classifyHttp, headerValue, type ExchangeOutcome, type ServicePolicy, type ServiceTraits } from '../../src/http/index.js';
import { forTerminal } from '../../src/base/redact/index.js';
import { ArchiveStoreError } from './errors.js';

/**
 * The recordings host, as the one policy reads it: a 429 naming no wait waits a minute; an abort
 * is the caller's cancel; an unknown error (a body that ended short) is passing trouble.
 */
export const RECORDINGS_TRAITS: ServiceTraits = {
  service: 'recordings',
  maxWaitKey: 'upstream.maxWaitMs',
  rateLimitDefaultWaitMs: 60_000,
  abortIsTransient: false,
  retryUnknownErrors: true,
};

/** Redirects followed for one recording, each to an allowed host, before it is `failed`. */
const MAX_REDIRECTS = 5;

/** What the archive makes of one download attempt. */
type AttemptVerdict =
  /** The body streamed whole into storage. */
  | { readonly next: 'stored' }
  /** Ask again at `url` (a redirect to an allowed host), at once and without credentials. */
  | { readonly next: 'redirect'; readonly url: URL }
  | { readonly next: 'retry'; readonly waitMs: number }
  /** Final for this recording: the link no longer serves it, or what it serves cannot be kept. */
  | { readonly next: 'expired' | 'failed'; readonly reason: string }
  /** Final for the whole archive pass: the storage failed, or the caller cancelled. */
  | { readonly next: 'fatal'; readonly error: unknown };

/** Where the download stands when an attempt ends. */
interface AttemptContext {
  /** The link asked this attempt (after redirects). */
  readonly url: URL;
  /** The record's own link: its host needs no `allowHosts` entry. */
  readonly original: URL;
  readonly allowHosts: readonly string[];
  readonly redirects: number;
  /** Attempts that failed and counted against `maxAttempts` before this one. */
  readonly retries: number;
  readonly maxAttempts: number;
  readonly maxBytes: number;
  readonly policy: ServicePolicy;
  readonly nowMs: number;
  /** In [0, 1), for the backoff's jitter. */
  readonly random: number;
}

/** The body may be kept when its type, if given, is audio (or video/mp4, or plain bytes). */
export function isMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type.startsWith('audio/') || type === 'video/mp4' || type === 'application/octet-stream' || type === 'binary/octet-stream';
}

/** A host the link may lead to: the link's own, or one in `allowHosts` (by host with port, or by name). */
function allowed(next: URL, context: AttemptContext): boolean {
  if (next.protocol !== 'https:' && next.protocol !== 'http:') return false;
  return next.host === context.original.host || context.allowHosts.includes(next.host) || context.allowHosts.includes(next.hostname);
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const EXPIRED: Readonly<Record<number, string>> = {
  403: 'the link was refused (expired or revoked)',
  404: 'no recording at the link (expired or deleted)',
  410: 'the recording is gone',
};

/** What one attempt means for the recording (pure: a table test covers it). */
export function classifyAttempt(outcome: ExchangeOutcome, context: AttemptContext): AttemptVerdict {
  if ('response' in outcome) {
    const { status, headers } = outcome.response;
    if (outcome.response.streamed === true) return { next: 'stored' };
    const location = headerValue(headers, 'location');
    if (REDIRECTS.has(status) && location !== undefined) {
      const next = URL.canParse(location, context.url.href) ? new URL(location, context.url) : undefined;
      if (next === undefined) return { next: 'failed', reason: `HTTP ${status} to an unreadable location` };
      if (!allowed(next, context)) return { next: 'failed', reason: `redirected to ${forTerminal(next.host)}, which is not in recordings.allowHosts` };
      if (context.redirects >= MAX_REDIRECTS) return { next: 'failed', reason: `more than ${MAX_REDIRECTS} redirects` };
      return { next: 'redirect', url: next };
    }
    if (status >= 200 && status < 300) {
      const type = forTerminal(headerValue(headers, 'content-type') ?? 'no content type');
      return { next: 'failed', reason: `answered ${status} with ${type}, not audio` };
    }
    const expired = EXPIRED[status];
    if (expired !== undefined) return { next: 'expired', reason: `HTTP ${status}: ${expired}` };
    return giveUpOrRetry(classifyHttp({ status, headers }, context.policy, verdictContext(context)), context);
  }
  if (outcome.cancelled || outcome.error instanceof ArchiveStoreError) return { next: 'fatal', error: outcome.error };
  if (outcome.error instanceof BodyTooLargeError) {
    const declared = headerValue(outcome.head?.headers, 'content-length');
    const size = declared === undefined ? 'more' : `${forTerminal(declared)} bytes`;
    return { next: 'failed', reason: `larger than recordings.maxBytes (${size} > ${context.maxBytes} bytes); nothing kept` };
  }
  return giveUpOrRetry(classifyHttp({ error: outcome.error }, context.policy, verdictContext(context)), context);
}

function verdictContext(context: AttemptContext) {
  return { nowMs: context.nowMs, attempt: context.retries + 1, random: context.random };
}

function giveUpOrRetry(verdict: ReturnType<typeof classifyHttp>, context: AttemptContext): AttemptVerdict {
  const attempts = context.retries + 1;
  if (verdict.retry && attempts < context.maxAttempts) return { next: 'retry', waitMs: verdict.waitMs };
  const detail = verdict.status === undefined && verdict.detail !== undefined ? `: ${forTerminal(verdict.detail).slice(0, 200)}` : '';
  return { next: 'failed', reason: `${verdict.label}${detail} (after ${attempts} attempt${attempts === 1 ? '' : 's'})` };
}
