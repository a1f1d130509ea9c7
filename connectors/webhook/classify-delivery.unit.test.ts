import { describe, expect, it } from 'vitest';
import { servicePolicy } from '../../src/http/index.js';
import { classifyDelivery, WEBHOOK_TRAITS, type AttemptResult, type DeliveryDecision } from './classify-delivery.js';

const now = Date.parse('2025-01-01T00:00:00Z');
const context = { nowMs: now, policy: servicePolicy(WEBHOOK_TRAITS, { baseDelayMs: 500, maxDelayMs: 30_000 }) };
const networkError = (code: string): Error => Object.assign(new Error(`failed: ${code}`), { code });
const namedError = (name: string): Error => Object.assign(new Error(`failed: ${name}`), { name });

describe('classifyDelivery', () => {
  it.each<[string, AttemptResult, Partial<DeliveryDecision> & Pick<DeliveryDecision, 'action'>]>([
    ['200', { status: 200 }, { action: 'delivered' }],
    ['202', { status: 202 }, { action: 'delivered' }],
    ['204', { status: 204 }, { action: 'delivered' }],
    ['500', { status: 500, body: 'boom' }, { action: 'retry', reason: 'webhook receiver answered HTTP 500: boom' }],
    ['503 with Retry-After seconds', { status: 503, retryAfter: '2' }, { action: 'retry', retryAfterMs: 2000 }],
    ['502 without body', { status: 502 }, { action: 'retry', reason: 'webhook receiver answered HTTP 502' }],
    ['429 with Retry-After seconds', { status: 429, retryAfter: '7' }, { action: 'retry', retryAfterMs: 7000 }],
    ['429 with Retry-After date', { status: 429, retryAfter: 'Wed, 01 Jan 2025 00:00:30 GMT' }, { action: 'retry', retryAfterMs: 30_000 }],
    ['429 with Retry-After date in the past', { status: 429, retryAfter: 'Tue, 31 Dec 2024 23:00:00 GMT' }, { action: 'retry', retryAfterMs: 0 }],
    ['408 request timeout', { status: 408 }, { action: 'retry' }],
    ['400', { status: 400, body: ' bad record ' }, { action: 'reject', reason: 'webhook receiver answered HTTP 400: bad record' }],
    ['401', { status: 401 }, { action: 'reject', reason: 'webhook receiver answered HTTP 401' }],
    ['404', { status: 404, body: 'no such hook' }, { action: 'reject' }],
    ['409', { status: 409 }, { action: 'reject' }],
    ['422', { status: 422 }, { action: 'reject' }],
    ['301 redirect', { status: 301 }, { action: 'reject' }],
    ['ECONNREFUSED', { error: networkError('ECONNREFUSED') }, { action: 'retry' }],
    ['ECONNRESET', { error: networkError('ECONNRESET') }, { action: 'retry' }],
    ['undici socket error', { error: networkError('UND_ERR_SOCKET') }, { action: 'retry' }],
    ['undici headers timeout', { error: networkError('UND_ERR_HEADERS_TIMEOUT') }, { action: 'retry' }],
    ['AbortSignal.timeout', { error: namedError('TimeoutError') }, { action: 'retry' }],
    ['abort', { error: namedError('AbortError') }, { action: 'retry' }],
    ['unmatched mock request', { error: networkError('UND_MOCK_ERR_MOCK_NOT_MATCHED') }, { action: 'fail' }],
    ['invalid argument', { error: networkError('UND_ERR_INVALID_ARG') }, { action: 'fail' }],
    ['a thrown string', { error: 'weird' }, { action: 'fail' }],
  ])('%s', (_label, attempt, expected) => {
    expect(classifyDelivery(attempt, context)).toMatchObject(expected);
  });

  it.each([['soon'], [undefined]])('429 with Retry-After %j leaves the wait to the backoff', (retryAfter) => {
    const decision = classifyDelivery({ status: 429, retryAfter }, context);
    expect(decision.action).toBe('retry');
    expect(decision).not.toHaveProperty('retryAfterMs');
  });

  it('keeps the first 500 characters of a long response body in the reason', () => {
    const decision = classifyDelivery({ status: 400, body: 'x'.repeat(2000) }, context);
    expect(decision).toEqual({ action: 'reject', reason: `webhook receiver answered HTTP 400: ${'x'.repeat(500)}…` });
  });

  it('names the error code in a network failure reason', () => {
    expect(classifyDelivery({ error: networkError('ECONNREFUSED') }, context)).toEqual({
      action: 'retry',
      reason: 'webhook request failed: ECONNREFUSED: failed: ECONNREFUSED',
      waitMs: 0,
    });
  });
});

describe('a receiver echoing a secret', () => {
  it('is scrubbed before the reason is cut at 500 characters', () => {
    const secret = 'whsec_0123456789abcdef';
    const clean = (text: string): string => text.split(secret).join('[redacted]');
    const decision = classifyDelivery({ status: 400, body: `${'x'.repeat(495)}${secret}` }, { ...context, clean });
    const reason = 'reason' in decision ? decision.reason : '';
    expect(reason).toContain('[red');
    for (let index = 0; index + 8 <= secret.length; index += 1) expect(reason).not.toContain(secret.slice(index, index + 8));
  });
});
