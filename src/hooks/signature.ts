import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The signature settings of `hooks.signature` (see the config section for defaults). */
export interface SignatureSettings {
  readonly header: string;
  readonly algorithm: 'sha256' | 'sha1';
  readonly encoding: 'hex' | 'base64';
  readonly prefix: string;
  readonly timestampHeader: string | false;
  readonly toleranceMs: number;
}

/** Why a delivery was refused, or `ok`. */
export type Verdict = 'ok' | 'missing' | 'bad_signature' | 'stale';

const DIGEST_BYTES = { sha256: 32, sha1: 20 } as const;
/** Below this a timestamp reads as seconds, above as milliseconds (year 5138 in seconds): the spec names neither. */
const MILLISECONDS_FROM = 100_000_000_000;

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** What is signed: the raw body, or `timestamp.body` when a timestamp header binds the time. */
function signedContent(body: Buffer, timestamp: string | undefined): Buffer {
  return timestamp === undefined ? body : Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), body]);
}

/** The header value a sender puts on `body` (the simulator's sender and tests use it). */
export function signBody(settings: SignatureSettings, secret: string, body: Buffer, timestamp?: string): string {
  const digest = createHmac(settings.algorithm, secret).update(signedContent(body, timestamp)).digest(settings.encoding);
  return `${settings.prefix}${digest}`;
}

/** One candidate digest from the header, decoded; undefined when it is not one of the configured encoding and length. */
function decodeCandidate(settings: SignatureSettings, text: string): Buffer | undefined {
  const raw = text.startsWith(settings.prefix) ? text.slice(settings.prefix.length) : undefined;
  if (raw === undefined) return undefined;
  const pattern = settings.encoding === 'hex' ? /^[0-9a-fA-F]+$/ : /^[A-Za-z0-9+/]+={0,2}$/;
  if (!pattern.test(raw)) return undefined;
  const bytes = Buffer.from(raw, settings.encoding);
  return bytes.length === DIGEST_BYTES[settings.algorithm] ? bytes : undefined;
}

/** Unix time of the header in milliseconds, seconds or milliseconds alike; undefined when it is not a whole number. */
function timestampMs(text: string): number | undefined {
  if (!/^\d{1,16}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= MILLISECONDS_FROM ? value : value * 1000;
}

/**
 * Checks a delivery's HMAC over its raw body (and timestamp), in constant time per candidate.
 * The header may carry several signatures separated by commas or spaces (a sender rotating its
 * secret signs with both); one match is enough. A timestamp further than the tolerance from now,
 * either way, is `stale`: a replay of an old delivery, or a sender whose clock is off.
 */
export function verifySignature(settings: SignatureSettings, secret: string, headers: IncomingHttpHeaders, body: Buffer, nowMs: number): Verdict {
  const header = headerValue(headers, settings.header);
  if (header === undefined || header.trim() === '') return 'missing';
  let timestamp: string | undefined;
  if (settings.timestampHeader !== false) {
    timestamp = headerValue(headers, settings.timestampHeader)?.trim();
    if (timestamp === undefined || timestamp === '') return 'missing';
    const atMs = timestampMs(timestamp);
    if (atMs === undefined) return 'bad_signature';
    if (Math.abs(nowMs - atMs) > settings.toleranceMs) return 'stale';
  }
  const expected = createHmac(settings.algorithm, secret).update(signedContent(body, timestamp)).digest();
  let match = false;
  for (const candidate of header.split(/[\s,]+/)) {
    const bytes = decodeCandidate(settings, candidate);
    // Every candidate is compared (no early exit), so timing says nothing about which one matched.
    if (bytes !== undefined && timingSafeEqual(bytes, expected)) match = true;
  }
  return match ? 'ok' : 'bad_signature';
}

/**
 * Checks a shared token: `Bearer <token>` or the bare token in the header. Both sides are hashed
 * first so the comparison takes the same time whatever the length of the guess.
 */
export function verifyToken(header: string, secret: string, headers: IncomingHttpHeaders): Verdict {
  const value = headerValue(headers, header)?.trim();
  if (value === undefined || value === '') return 'missing';
  const token = /^Bearer\s+(\S+)$/i.exec(value)?.[1] ?? value;
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(token), digest(secret)) ? 'ok' : 'bad_signature';
}
