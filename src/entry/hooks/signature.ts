import { createHash, createHmac, timingSafeEqual, type Hmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { headerValue } from '../../http/index.js';

/** The signature settings of `hooks.signature` (see the config section for defaults). */
export interface SignatureSettings {
  readonly header: string;
  readonly algorithm: 'sha256' | 'sha1';
  readonly encoding: 'hex' | 'base64';
  readonly prefix: string;
  readonly timestampHeader: string | false;
  readonly toleranceMs: number;
}

/** Why a delivery was refused. */
type Refusal = 'missing' | 'bad_signature' | 'stale';

/** What an HMAC delivery's headers claim, checked before any body byte is read. */
export interface SignedClaim {
  /** The decoded digests of the header, each of the configured encoding and length. */
  readonly candidates: readonly Buffer[];
  /** The signed time as sent, when a timestamp header binds it. */
  readonly timestamp: string | undefined;
}

const DIGEST_BYTES = { sha256: 32, sha1: 20 } as const;
/** Below this a timestamp reads as seconds, above as milliseconds (year 5138 in seconds): the spec names neither. */
const MILLISECONDS_FROM = 100_000_000_000;
/** More candidates than a sender rotating its secret needs; past it the header is junk. */
const MAX_CANDIDATES = 4;

/** What is signed ahead of the raw body: nothing, or `timestamp.` when a timestamp header binds the time. */
function signedPrefix(timestamp: string | undefined): Buffer {
  return timestamp === undefined ? Buffer.alloc(0) : Buffer.from(`${timestamp}.`, 'utf8');
}

/** The header value a sender puts on `body` (the simulator's sender and tests use it). */
export function signBody(settings: SignatureSettings, secret: string, body: Buffer, timestamp?: string): string {
  const digest = createHmac(settings.algorithm, secret).update(signedPrefix(timestamp)).update(body).digest(settings.encoding);
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
 * Reads the signature and timestamp headers without the body: a missing header, a digest of the
 * wrong form or a time further than the tolerance from now (either way: a replay of an old
 * delivery, or a sender whose clock is off) is refused before a byte of the body is read. The
 * header may carry several signatures separated by commas or spaces (a sender rotating its secret
 * signs with both).
 */
export function readClaim(settings: SignatureSettings, headers: IncomingHttpHeaders, nowMs: number): SignedClaim | Refusal {
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
  const texts = header.split(/[\s,]+/).filter((text) => text !== '');
  if (texts.length > MAX_CANDIDATES) return 'bad_signature';
  const candidates = texts.map((text) => decodeCandidate(settings, text)).filter((bytes) => bytes !== undefined);
  return candidates.length === 0 ? 'bad_signature' : { candidates, timestamp };
}

/** The secret a delivery was signed with, and the digest it matched (the delivery's identity for replays). */
interface SignedBy {
  readonly secret: string;
  readonly digest: Buffer;
}

/**
 * The HMAC of a body as it streams in, under each secret it may be signed with (one when the
 * business is known from the path or a header), so the body need not be kept to check it and
 * nothing of it is parsed before it is.
 */
export class BodyDigest {
  readonly #signers: readonly { readonly secret: string; readonly hmac: Hmac }[];

  constructor(settings: SignatureSettings, secrets: readonly string[], timestamp: string | undefined) {
    const prefix = signedPrefix(timestamp);
    this.#signers = secrets.map((secret) => ({ secret, hmac: createHmac(settings.algorithm, secret).update(prefix) }));
  }

  update(chunk: Buffer): void {
    for (const { hmac } of this.#signers) hmac.update(chunk);
  }

  /** The secret one of the claim's candidates matches; every pair is compared in constant time, with no early exit. */
  match(claim: SignedClaim): SignedBy | undefined {
    let found: SignedBy | undefined;
    for (const { secret, hmac } of this.#signers) {
      const digest = hmac.digest();
      for (const candidate of claim.candidates) if (timingSafeEqual(candidate, digest) && found === undefined) found = { secret, digest };
    }
    return found;
  }
}

/**
 * The secret whose shared token the header carries (undefined: none, or no header) (`Bearer <token>` or the bare token). Both
 * sides are hashed first so the comparison takes the same time whatever the length of the guess.
 */
export function matchToken(header: string, secrets: readonly string[], headers: IncomingHttpHeaders): string | undefined {
  const value = headerValue(headers, header)?.trim();
  if (value === undefined || value === '') return undefined;
  const token = /^Bearer\s+(\S+)$/i.exec(value)?.[1] ?? value;
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  const guess = digest(token);
  let found: string | undefined;
  for (const secret of secrets) if (timingSafeEqual(guess, digest(secret)) && found === undefined) found = secret;
  return found;
}
