import { isUtf8 } from 'node:buffer';
import { BodyTooLargeError, capRateLimitInfo, parseRateLimitHeaders } from '../../http/index.js';
import type { CappedWaitNote, ExchangeHead, ExchangeOutcome, ServicePolicy } from '../../http/index.js';
import { INEXACT_NUMBER_KEY, isJsonObject } from '../../normalize/index.js';
import type { Redact } from '../../base/redact/index.js';
import type { RateLimitInfo } from '../ratelimit/index.js';
import { classifyFailure } from './classify.js';
import type { Classification } from './classify.js';
import { UpstreamErrorCode } from './errors.js';
import type { RequestContext, UpstreamError } from './errors.js';
import type { JsonObject } from '../../base/json.js';
import { upstreamFailure } from './request-error.js';

/** A response read in full. */
export interface RawResponse {
  readonly status: number;
  readonly headers: ExchangeHead['headers'];
  readonly text: string;
  /** The body was not valid UTF-8: `text` holds U+FFFD where its bad bytes were. */
  readonly replacedBytes: boolean;
  /** `X-RateLimit-*`, the reset cut to `maxWaitMs` from now. */
  readonly rateLimit?: RateLimitInfo;
  /** Set when the reset was further ahead than `maxWaitMs`. */
  readonly waitCapped?: CappedWaitNote;
}

/** An attempt that failed, as upstream reads it: the error and the one classification it was built from. */
export interface UpstreamFailure {
  readonly error: UpstreamError;
  readonly classification: Classification;
}

/** What every exchange with the service shares: the redactor, the clock, the failure policy and the bounds. */
export interface ExchangeSettings {
  readonly redact: Redact;
  readonly now: () => number;
  /** Its `maxWaitMs` bounds every wait a server names. */
  readonly policy: ServicePolicy;
  /** One deadline per request, headers and body together, ms. */
  readonly timeoutMs: number;
  /** Largest body read; a longer one fails as transient. */
  readonly maxBodyBytes: number;
}

function rateLimitOf(headers: ExchangeHead['headers'], settings: ExchangeSettings): Pick<RawResponse, 'rateLimit' | 'waitCapped'> {
  const now = settings.now();
  const seen = parseRateLimitHeaders(headers, now);
  if (seen === undefined) return {};
  // A reset far ahead would stop the business for as long: it is cut like any server-named wait.
  const rateLimit = capRateLimitInfo(seen, now, settings.policy.maxWaitMs);
  if (rateLimit === seen) return { rateLimit };
  return { rateLimit, waitCapped: { askedMs: seen.resetAtMs - now, waitMs: settings.policy.maxWaitMs, source: 'X-RateLimit-Reset' } };
}

/**
 * Upstream's reading of one exchange attempt (`send()` did the deadline, headers and body together,
 * and the size bound): a complete answer of any status, or the failure. Network failures, a passed
 * deadline, an oversized body and a body that ends early are transient; the caller's cancel is final.
 */
export function readOutcome(outcome: ExchangeOutcome, context: RequestContext, settings: ExchangeSettings): { readonly raw: RawResponse } | UpstreamFailure {
  const { redact, now, policy, timeoutMs, maxBodyBytes } = settings;
  if ('response' in outcome) {
    const { status, headers, body } = outcome.response;
    // One native pass over the bytes (simdutf): decoding alone would hide bad bytes as U+FFFD.
    return { raw: { status, headers, text: body.toString('utf8'), replacedBytes: !isUtf8(body), ...rateLimitOf(headers, settings) } };
  }
  const { error, head } = outcome;
  const timedOut: Classification = {
    kind: 'transient',
    retry: true,
    code: UpstreamErrorCode.Timeout,
    reason: `no complete response within ${timeoutMs} ms (upstream.timeoutMs)`,
  };
  if (head === undefined) {
    const classification = outcome.timedOut ? timedOut : classifyFailure(error, now(), policy);
    return { error: upstreamFailure(classification, context, { cause: error }, redact), classification };
  }
  const limits = rateLimitOf(head.headers, settings);
  const classification =
    error instanceof BodyTooLargeError
      ? tooLarge(head.status, maxBodyBytes, now(), policy)
      : outcome.timedOut
        ? timedOut
        : outcome.cancelled
          ? classifyFailure(error, now(), policy)
          : classifyFailure({ status: head.status, bodyProblem: 'truncated' }, now(), policy);
  const details = { status: head.status, cause: error, ...(limits.rateLimit ? { rateLimit: limits.rateLimit } : {}) };
  return { error: upstreamFailure(classification, context, details, redact), classification };
}

function tooLarge(status: number, maxBodyBytes: number, now: number, policy: ServicePolicy): Classification {
  const classification = classifyFailure({ status, bodyProblem: 'too_large' }, now, policy);
  return { ...classification, reason: `${classification.reason} (${maxBodyBytes} bytes): not read further` };
}

/** `JSON.parse`, or `undefined` when the text is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return parseJsonExact(text);
  } catch {
    return undefined;
  }
}

/**
 * Accepts both v1 success envelopes: `{ data: {...} }` and a legacy top-level payload (also the
 * shape of v2 and session-style answers). A `data` that is not an object is part of a top-level
 * payload. Returns `undefined` for a body that is not a JSON object.
 */
export function unwrapSuccess(body: unknown): JsonObject | undefined {
  if (!isJsonObject(body)) return undefined;
  return isJsonObject(body.data) ? body.data : body;
}

// JSON parsed exactly

/**
 * JSON numbers that a parser silently turns into a different integer (`100000016.0000000001`
 * reads as `100000016`) would merge two records that upstream keeps apart when used as ids.
 * `parseJsonExact` parses like `JSON.parse`, except that such a number becomes
 * `{ "$inexactNumber": "<its text>" }`, which no normalizer accepts as a number or an id: the
 * record becomes a dead letter naming the value instead of overwriting its twin.
 */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(mayHoldInexactNumber(text) ? markInexactNumbers(text) : text) as unknown;
}

/**
 * False when no literal of `text` can be one `markInexactNumbers` rewrites, so most pages skip its
 * string-aware scan. Such a literal reads as an integer it is not, so its decimal value has a
 * fraction: it holds a digit, `.` and a digit, or (no point) a negative exponent, `e-` between
 * digits. `indexOf` finds those anchors fast; the few found (also inside strings: a superset) are
 * checked. A rewritten literal only parses where a value may start (at the start, or after `:`,
 * `,` or `[` and whitespace), so the run of literal characters around an anchor is the very
 * literal the scan would rewrite, and a run after anything else (`"d296e-9030"`, a uuid) is skipped.
 */
function mayHoldInexactNumber(text: string): boolean {
  return hasInexactAround(text, '.') || hasInexactAround(text, 'e-') || hasInexactAround(text, 'E-');
}

function hasInexactAround(text: string, anchor: string): boolean {
  for (let at = text.indexOf(anchor); at !== -1; at = text.indexOf(anchor, at + anchor.length)) {
    if (!isDigit(text.charCodeAt(at - 1)) || !isDigit(text.charCodeAt(at + anchor.length))) continue;
    let start = at - 1;
    while (isLiteralChar(text.charCodeAt(start - 1))) start--;
    if (!startsValue(text, start)) continue;
    let end = at + anchor.length;
    while (isLiteralChar(text.charCodeAt(end))) end++;
    if (isInexactInteger(text.slice(start, end))) return true;
  }
  return false;
}

/** Whether JSON may start a value at `index`: after `:`, `,`, `[` or nothing, and JSON whitespace. */
function startsValue(text: string, index: number): boolean {
  let before = index - 1;
  for (let code = text.charCodeAt(before); code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d; code = text.charCodeAt(before)) before--;
  if (before < 0) return true;
  const code = text.charCodeAt(before);
  return code === 0x3a || code === 0x2c || code === 0x5b;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** What the scan reads as part of a number literal: digits, `.`, `e`, `E`, `+`, `-`. */
function isLiteralChar(code: number): boolean {
  return isDigit(code) || code === 0x2e || code === 0x65 || code === 0x45 || code === 0x2b || code === 0x2d;
}

/**
 * Rewrites, outside strings, every number literal whose parsed value is an integer it does not equal.
 * Strings (most of a page: ids, URLs, text) are skipped by `indexOf`, and only a literal with a
 * fraction or an exponent, the only kind that can collapse, is looked at.
 */
function markInexactNumbers(text: string): string {
  let out = '';
  let copied = 0;
  for (let from = 0; ;) {
    const quote = text.indexOf('"', from);
    const end = quote === -1 ? text.length : quote;
    for (let i = from; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x2d && (c < 0x30 || c > 0x39)) continue;
      let after = i + 1;
      let fractionOrExponent = false;
      for (; after < end; after++) {
        const d = text.charCodeAt(after);
        if (d === 0x2e || d === 0x65 || d === 0x45) fractionOrExponent = true;
        else if ((d < 0x30 || d > 0x39) && d !== 0x2b && d !== 0x2d) break;
      }
      const literal = fractionOrExponent ? text.slice(i, after) : '';
      if (literal !== '' && isInexactInteger(literal)) {
        out += `${text.slice(copied, i)}{"${INEXACT_NUMBER_KEY}":"${literal}"}`;
        copied = after;
      }
      i = after - 1;
    }
    if (quote === -1) break;
    const close = closingQuote(text, quote);
    if (close === -1) break;
    from = close + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Where the string opened at `quote` ends (a quote after an even run of backslashes), or -1. */
function closingQuote(text: string, quote: number): number {
  for (let close = text.indexOf('"', quote + 1); close !== -1; close = text.indexOf('"', close + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return close;
  }
  return -1;
}

function isInexactInteger(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isInteger(value) || !/[.eE]/.test(literal)) return false;
  const match = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (match === null) return false;
  const [, whole = '', fraction = '', exponent = '0'] = match;
  // Shift the decimal point by the exponent; the literal is an integer when nothing but zeros
  // is left after it.
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  const after = point < 0 ? digits : digits.slice(Math.max(0, point));
  return /[1-9]/.test(after);
}
