import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signBody, verifySignature, verifyToken, type SignatureSettings } from './signature.js';

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

describe('verifyToken', () => {
  it.each([
    [{ authorization: 'Bearer tok-12345' }, 'ok'],
    [{ authorization: 'tok-12345' }, 'ok'],
    [{ authorization: 'Bearer tok-1234' }, 'bad_signature'],
    [{ authorization: 'Basic tok-12345' }, 'bad_signature'],
    [{}, 'missing'],
  ])('%j → %s', (headers, verdict) => {
    expect(verifyToken('authorization', 'tok-12345', headers)).toBe(verdict);
  });
});
