import { isUtf8 } from 'node:buffer';
import { capRateLimitInfo, jsonValue, parseJson, parseRateLimitHeaders } from '../../http/index.js';
import type { CappedWaitNote, ExchangeHead } from '../../http/index.js';
import { INEXACT_NUMBER_KEY } from '../../normalize/index.js';
import type { JsonObject } from '../../base/json.js';
import type { RateLimitInfo } from '../ratelimit/index.js';

/**
 * An upstream answer read once: its rate-limit headers, and its body, the page as JSON parsed
 * exactly (big integers kept apart) out of its success envelope, with whether the bytes were
 * UTF-8. The client's `decide` reads every answer here; what a failure means is `classify.ts`'s.
 */

/** `X-RateLimit-*` of an answer, the reset cut to `maxWaitMs` from now like any server-named wait (a reset far ahead would stop the business as long). */
export function rateLimitOf(
  headers: ExchangeHead['headers'],
  now: number,
  maxWaitMs: number,
): { readonly rateLimit?: RateLimitInfo; readonly waitCapped?: CappedWaitNote } {
  const seen = parseRateLimitHeaders(headers, now);
  if (seen === undefined) return {};
  const rateLimit = capRateLimitInfo(seen, now, maxWaitMs);
  if (rateLimit === seen) return { rateLimit };
  return { rateLimit, waitCapped: { askedMs: seen.resetAtMs - now, waitMs: maxWaitMs, source: 'X-RateLimit-Reset' } };
}

/** A page's payload, and whether it was decoded from bytes that were not UTF-8. */
interface PagePayload {
  /** The payload, out of its `data` envelope when it had one. */
  readonly payload: JsonObject;
  /** The body was not valid UTF-8: its strings hold U+FFFD where the bad bytes were, a rewrite of what upstream sent. */
  readonly replacedUtf8: boolean;
}

/** A 2xx body as a page: `undefined` when it is not a JSON object (the client fails it as transient `BAD_JSON`). */
export function readPayload(body: Buffer): PagePayload | undefined {
  // One native pass over the bytes (simdutf): decoding alone would hide bad bytes as U+FFFD.
  const payload = unwrapSuccess(jsonValue(parseJson(body.toString('utf8'), parseJsonExact)));
  return payload === undefined ? undefined : { payload, replacedUtf8: !isUtf8(body) };
}

/** Any other body, for its error message: the JSON it holds, else its text. */
export function readErrorBody(body: Buffer): unknown {
  const read = parseJson(body.toString('utf8'), parseJsonExact);
  return read.ok ? read.value : read.text;
}

/**
 * Accepts both v1 success envelopes: `{ data: {...} }` and a legacy top-level payload (also the
 * shape of v2 and session-style answers). A `data` that is not an object is part of a top-level
 * payload. Returns `undefined` for a body that is not a JSON object.
 */
export function unwrapSuccess(body: unknown): JsonObject | undefined {
  if (!isObject(body)) return undefined;
  return isObject(body.data) ? body.data : body;
}

// Read here rather than from normalize, which reads records later: a page's reading stays in its stage.
function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
