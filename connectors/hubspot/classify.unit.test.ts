import { describe, expect, it } from 'vitest';
import { classifyHubSpotFailure, type HubSpotFailure } from './classify.js';

const context = { retry: 2, policy: { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000 }, random: 0.5, nowMs: Date.parse('2024-03-01T00:00:00Z') };
const answer = (status: number, body: unknown = undefined, headers: Record<string, string> = {}): HubSpotFailure => ({ status, body, headers });
const limited = (policyName: string) => ({
  status: 'error',
  message: `You have reached your ${policyName.toLowerCase()} limit.`,
  errorType: 'RATE_LIMIT',
  correlationId: 'c-1',
  policyName,
});

describe('classifyHubSpotFailure', () => {
  it.each([
    ['429 DAILY stops', answer(429, limited('DAILY')), { kind: 'daily_limit', retry: false, waitMs: 0 }],
    ['429 SECONDLY waits a second', answer(429, limited('SECONDLY')), { kind: 'rate_limited', retry: true, waitMs: 1050 }],
    [
      '429 TEN_SECONDLY_ROLLING waits the interval',
      answer(429, limited('TEN_SECONDLY_ROLLING'), { 'x-hubspot-ratelimit-interval-milliseconds': '10000' }),
      { kind: 'rate_limited', retry: true, waitMs: 10_050 },
    ],
    ['429 with Retry-After', answer(429, limited('TEN_SECONDLY_ROLLING'), { 'retry-after': '3' }), { kind: 'rate_limited', retry: true, waitMs: 3050 }],
    ['429 unknown policy backs off', answer(429, {}), { kind: 'rate_limited', retry: true, waitMs: 1000 }],
    ['500 retries with backoff', answer(500), { kind: 'transient', retry: true, waitMs: 100 }],
    ['503 retries', answer(503, 'not json'), { kind: 'transient', retry: true }],
    [
      'a 200 whose body is not JSON retries',
      { status: 200, body: undefined, headers: {}, bodyProblem: 'not_json' },
      { kind: 'transient', retry: true, reason: 'HTTP 200 with a body that is not JSON' },
    ],
    [
      '401 stops',
      answer(401, { status: 'error', message: 'Authentication credentials not found.', category: 'INVALID_AUTHENTICATION' }),
      { kind: 'auth', retry: false },
    ],
    ['403 stops', answer(403, { category: 'MISSING_SCOPES', message: 'missing scopes' }), { kind: 'forbidden', retry: false }],
    ['404 not found', answer(404, { category: 'OBJECT_NOT_FOUND' }), { kind: 'not_found', retry: false, batchRejection: false }],
    [
      '400 is a batch rejection',
      answer(400, { category: 'VALIDATION_ERROR', message: 'Property values were not valid' }),
      { kind: 'invalid', retry: false, batchRejection: true },
    ],
    ['409 is a batch rejection', answer(409, { category: 'CONFLICT' }), { kind: 'conflict', retry: false, batchRejection: true }],
    ['ECONNRESET retries', { error: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) }, { kind: 'transient', retry: true, waitMs: 100 }],
    [
      'headers timeout retries',
      { error: Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }) },
      { kind: 'transient', retry: true },
    ],
    ['a bug is internal', { error: new TypeError('bad') }, { kind: 'internal', retry: false }],
  ] as const)('%s', (_name, failure, expected) => {
    expect(classifyHubSpotFailure(failure, context)).toMatchObject(expected);
  });

  it('keeps HubSpot message, category and policy in the reason, nothing else of the body', () => {
    const body = { ...limited('DAILY'), context: { secret: ['x'] }, links: { a: 'b' } };
    const verdict = classifyHubSpotFailure(answer(429, body), context);
    expect(verdict.reason).toBe('HTTP 429 RATE_LIMIT DAILY: You have reached your daily limit.');
    expect(verdict).toMatchObject({ correlationId: 'c-1', policyName: 'DAILY', hubspotMessage: 'You have reached your daily limit.' });
  });

  it('caps the backoff at maxDelayMs', () => {
    expect(classifyHubSpotFailure(answer(502), { ...context, retry: 30, random: 0.999 }).waitMs).toBeLessThanOrEqual(1000);
  });
});
