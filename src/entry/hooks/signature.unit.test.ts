import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { IncomingHttpHeaders } from 'node:http';
import { BodyDigest, matchToken, readClaim, signBody, type SignatureSettings } from './signature.js';

const SECRET = 'whsec-test-1';
const BODY = Buffer.from('{"event":"call.created","id":42}');
const NOW = 1_764_000_000_000;
const settings: SignatureSettings = {
  header: 'x-webhook-signature',
  algorithm: 'sha256',
  encoding: 'hex',
  prefix: '',
  timestampHeader: 'x-webhook-timestamp',
  toleranceMs: 300_000,
};
const seconds = String(NOW / 1000);

/** The receiver's two steps: the headers before the body, then the HMAC of the body as it streams in (here in two chunks). */
function verifySignature(settings: SignatureSettings, secret: string, headers: IncomingHttpHeaders, body: Buffer, nowMs: number): string {
  const claim = readClaim(settings, headers, nowMs);
  if (typeof claim === 'string') return claim;
  const digest = new BodyDigest(settings, ['another-secret', secret], claim.timestamp);
  digest.update(body.subarray(0, 5));
  digest.update(body.subarray(5));
  const signed = digest.match(claim);
  return signed === undefined ? 'bad_signature' : signed.secret === secret ? 'ok' : 'wrong_secret';
}

/** Computed here by hand, so a change to the scheme itself (not only to both sides) fails. */
function reference(algorithm: string, encoding: 'hex' | 'base64', content: string): string {
  return createHmac(algorithm, SECRET).update(content).digest(encoding);
}

describe('verifySignature', () => {
  const signed = reference('sha256', 'hex', `${seconds}.${BODY.toString()}`);
  it.each([
    ['the documented scheme: hex sha256 of "timestamp.body"', { 'x-webhook-signature': signed, 'x-webhook-timestamp': seconds }, 'ok'],
    ['upper-case hex', { 'x-webhook-signature': signed.toUpperCase(), 'x-webhook-timestamp': seconds }, 'ok'],
    [
      'the timestamp in milliseconds (the spec names no unit)',
      { 'x-webhook-signature': reference('sha256', 'hex', `${NOW}.${BODY.toString()}`), 'x-webhook-timestamp': String(NOW) },
      'ok',
    ],
    ['one of two rotated signatures', { 'x-webhook-signature': `${'0'.repeat(64)}, ${signed}`, 'x-webhook-timestamp': seconds }, 'ok'],
    ['no signature header', { 'x-webhook-timestamp': seconds }, 'missing'],
    ['no timestamp header', { 'x-webhook-signature': signed }, 'missing'],
    ['a signature of another body', { 'x-webhook-signature': reference('sha256', 'hex', `${seconds}.{}`), 'x-webhook-timestamp': seconds }, 'bad_signature'],
    [
      'the body signed without the timestamp',
      { 'x-webhook-signature': reference('sha256', 'hex', BODY.toString()), 'x-webhook-timestamp': seconds },
      'bad_signature',
    ],
    ['a truncated signature', { 'x-webhook-signature': signed.slice(0, 40), 'x-webhook-timestamp': seconds }, 'bad_signature'],
    ['a timestamp that is not a number', { 'x-webhook-signature': signed, 'x-webhook-timestamp': 'yesterday' }, 'bad_signature'],
    [
      'a timestamp 6 minutes old (replay)',
      { 'x-webhook-signature': reference('sha256', 'hex', `${NOW / 1000 - 360}.${BODY.toString()}`), 'x-webhook-timestamp': String(NOW / 1000 - 360) },
      'stale',
    ],
    [
      'a timestamp 6 minutes ahead',
      { 'x-webhook-signature': reference('sha256', 'hex', `${NOW / 1000 + 360}.${BODY.toString()}`), 'x-webhook-timestamp': String(NOW / 1000 + 360) },
      'stale',
    ],
  ])('%s', (_name, headers, verdict) => {
    expect(verifySignature(settings, SECRET, headers, BODY, NOW)).toBe(verdict);
  });

  it('takes the configured prefix, algorithm and encoding, and the body alone without a timestamp header', () => {
    const github: SignatureSettings = {
      ...settings,
      header: 'x-hub-signature',
      algorithm: 'sha1',
      encoding: 'base64',
      prefix: 'sha1=',
      timestampHeader: false,
    };
    const digest = reference('sha1', 'base64', BODY.toString());
    expect(verifySignature(github, SECRET, { 'x-hub-signature': `sha1=${digest}` }, BODY, NOW)).toBe('ok');
    expect(verifySignature(github, SECRET, { 'x-hub-signature': digest }, BODY, NOW)).toBe('bad_signature');
    expect(verifySignature(github, 'another-secret', { 'x-hub-signature': `sha1=${digest}` }, BODY, NOW)).toBe('bad_signature');
  });

  it('signBody writes what verifySignature accepts', () => {
    const header = signBody({ ...settings, prefix: 'v1=' }, SECRET, BODY, seconds);
    expect(header).toBe(`v1=${signed}`);
    expect(verifySignature({ ...settings, prefix: 'v1=' }, SECRET, { 'x-webhook-signature': header, 'x-webhook-timestamp': seconds }, BODY, NOW)).toBe('ok');
  });
});

describe('readClaim', () => {
  it('refuses a junk header before the body: no digest of the configured form, or too many candidates', () => {
    const at = { 'x-webhook-timestamp': seconds };
    expect(readClaim(settings, { ...at, 'x-webhook-signature': 'aa' }, NOW)).toBe('bad_signature');
    expect(readClaim(settings, { ...at, 'x-webhook-signature': 'z'.repeat(64) }, NOW)).toBe('bad_signature');
    expect(readClaim(settings, { ...at, 'x-webhook-signature': Array(5).fill('0'.repeat(64)).join(',') }, NOW)).toBe('bad_signature');
    expect(readClaim(settings, { 'x-webhook-timestamp': '1', 'x-webhook-signature': '0'.repeat(64) }, NOW)).toBe('stale');
    expect(readClaim(settings, { ...at, 'x-webhook-signature': `aa, ${'0'.repeat(64)}` }, NOW)).toEqual({ candidates: [Buffer.alloc(32)], timestamp: seconds });
  });
});

describe('BodyDigest', () => {
  it('names the secret that signed the body among several, and its digest', () => {
    const digest = new BodyDigest(settings, ['one', SECRET, 'three'], seconds);
    digest.update(BODY);
    const claim = readClaim(settings, { 'x-webhook-signature': signBody(settings, SECRET, BODY, seconds), 'x-webhook-timestamp': seconds }, NOW);
    if (typeof claim === 'string') throw new Error(claim);
    expect(digest.match(claim)).toEqual({ secret: SECRET, digest: Buffer.from(reference('sha256', 'hex', `${seconds}.${BODY.toString()}`), 'hex') });
  });
});

describe('matchToken', () => {
  it.each([
    [{ authorization: 'Bearer tok-12345' }, 'tok-12345'],
    [{ authorization: 'tok-12345' }, 'tok-12345'],
    [{ authorization: 'Bearer tok-67890' }, 'tok-67890'],
    [{ authorization: 'Bearer tok-1234' }, undefined],
    [{ authorization: 'Basic tok-12345' }, undefined],
    [{}, undefined],
  ])('%j → %s', (headers, secret) => {
    expect(matchToken('authorization', ['tok-12345', 'tok-67890'], headers)).toBe(secret);
  });
});
