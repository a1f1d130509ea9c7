import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhookPayload } from './sign.js';
import { verifyWebhookSignature } from './verify-webhook-signature.js';

const secret = 'whsec_test_0123456789abcdef';
const body = '{"business_id":"acme","records":[]}';
const timestamp = 1_700_000_000;
const now = timestamp * 1000;

describe('signWebhookPayload', () => {
  it('matches a known-answer vector (computed with openssl dgst -sha256 -hmac)', () => {
    expect(signWebhookPayload(secret, timestamp, body)).toBe('v1=7b9de965b1bdd6d4691f432147cbaf074798883282c3cbd176167168e5158000');
  });

  it('is HMAC-SHA256 of `${timestamp}.${body}` as node:crypto computes it', () => {
    const utf8Body = '{"name":"Zoë ☎"}';
    const expected = createHmac('sha256', secret).update(`${timestamp}.${utf8Body}`, 'utf8').digest('hex');
    expect(signWebhookPayload(secret, timestamp, utf8Body)).toBe(`v1=${expected}`);
  });

  it('changes with the timestamp, so a captured signature cannot be re-dated', () => {
    expect(signWebhookPayload(secret, timestamp + 1, body)).not.toBe(signWebhookPayload(secret, timestamp, body));
  });
});

describe('verifyWebhookSignature', () => {
  const signature = signWebhookPayload(secret, timestamp, body);
  const valid = { secret, timestamp: String(timestamp), body, signature, now };

  it('accepts a fresh, correctly signed body given as a string or as raw bytes', () => {
    expect(verifyWebhookSignature(valid)).toBe(true);
    expect(verifyWebhookSignature({ ...valid, body: Buffer.from(body) })).toBe(true);
  });

  it.each([
    ['a wrong secret', { secret: 'another-secret-of-16+chars' }],
    ['a tampered body', { body: body.replace('acme', 'acm3') }],
    ['a timestamp older than 5 minutes', { now: now + 301_000 }],
    ['a timestamp more than 5 minutes ahead', { now: now - 301_000 }],
    ['a re-dated timestamp', { timestamp: String(timestamp + 1) }],
    ['a missing timestamp', { timestamp: undefined }],
    ['a missing signature', { signature: undefined }],
    ['a malformed timestamp', { timestamp: '1700000000.5' }],
    ['a truncated signature', { signature: signature.slice(0, -2) }],
    ['another scheme version', { signature: signature.replace('v1=', 'v0=') }],
  ])('rejects %s', (_label, change) => {
    expect(verifyWebhookSignature({ ...valid, ...change })).toBe(false);
  });

  it('accepts a timestamp exactly at the tolerance and honours a custom tolerance', () => {
    expect(verifyWebhookSignature({ ...valid, now: now + 300_000 })).toBe(true);
    expect(verifyWebhookSignature({ ...valid, now: now + 60_000, toleranceSeconds: 30 })).toBe(false);
  });
});
