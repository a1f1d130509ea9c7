import { describe, expect, it } from 'vitest';
import { classifyHttp } from './classify.js';
import type { AttemptContext, HttpOutcome, HttpVerdict } from './classify.js';
// Each service's traits live with its client; this table shows how the one policy reads them side by side.
import { HUBSPOT_TRAITS } from '../../connectors/hubspot/classify.js';
import { WEBHOOK_TRAITS } from '../../connectors/webhook/classify-delivery.js';
import { servicePolicy, UPSTREAM_TRAITS } from './services.js';

const NOW = Date.UTC(2025, 10, 22, 3, 0, 0);
const backoff = { baseDelayMs: 100, maxDelayMs: 1_000 };
const policies = {
  upstream: servicePolicy(UPSTREAM_TRAITS, backoff, 60_000),
  hubspot: servicePolicy(HUBSPOT_TRAITS, backoff, 60_000),
  webhook: servicePolicy(WEBHOOK_TRAITS, backoff, 60_000),
};
type Service = keyof typeof policies;
const ALL: readonly Service[] = ['upstream', 'hubspot', 'webhook'];

const thrown = (code: string, name = 'Error'): HttpOutcome => ({ error: Object.assign(new Error(`failed: ${code}`), { code, name }) });
const named = (name: string): HttpOutcome => ({ error: Object.assign(new Error(name), { name }) });
const wrapped = (code: string): HttpOutcome => ({ error: new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code }) }) });
const status = (code: number, headers: Record<string, string> = {}): HttpOutcome => ({ status: code, headers });
const context: AttemptContext = { nowMs: NOW, attempt: 2, random: 0.5 };

type Row = [string, readonly Service[], HttpOutcome, Partial<HttpVerdict>, Partial<AttemptContext>?];

// One row per rule; every service listed must agree. Backoff at attempt 2, random 0.5 is 100 ms.
const rows: Row[] = [
  ['500 backs off', ALL, status(500), { kind: 'transient', retry: true, waitMs: 100, waitSource: 'backoff' }],
  ['502, 503, 504 and 408 are transient', ALL, status(504), { kind: 'transient', retry: true }],
  ['408 is transient', ALL, status(408), { kind: 'transient', retry: true }],
  [
    'Retry-After on a 503 is honoured',
    ['upstream', 'webhook'],
    status(503, { 'retry-after': '5' }),
    { kind: 'transient', waitMs: 5_000, serverWaitMs: 5_000, waitSource: 'Retry-After' },
  ],
  ['Retry-After shorter than the backoff waits the backoff', ['upstream', 'webhook'], status(503, { 'retry-after': '0' }), { waitMs: 100 }],
  [
    'Retry-After on a 503 is honoured, with jitter at HubSpot',
    ['hubspot'],
    status(503, { 'retry-after': '5' }),
    { kind: 'transient', waitMs: 5_050, serverWaitMs: 5_000 },
  ],
  [
    'Retry-After as an HTTP date on a 502',
    ['upstream', 'webhook'],
    status(502, { 'Retry-After': new Date(NOW + 30_000).toUTCString() }),
    { waitMs: 30_000, waitSource: 'Retry-After' },
  ],
  ['429 Retry-After seconds', ['upstream', 'webhook'], status(429, { 'retry-after': '12' }), { kind: 'rate_limited', retry: true, waitMs: 12_000 }],
  ['429 Retry-After gets jitter at HubSpot', ['hubspot'], status(429, { 'retry-after': '3' }), { kind: 'rate_limited', waitMs: 3_050 }],
  ['429 Retry-After date in the past', ['upstream', 'webhook'], status(429, { 'retry-after': new Date(NOW - 3_600_000).toUTCString() }), { waitMs: 0 }],
  [
    '429 body retry_after wins over the header',
    ['upstream'],
    status(429, { 'retry-after': '99' }),
    { waitMs: 17_000, waitSource: 'body' },
    { bodyWaitMs: 17_000 },
  ],
  [
    '429 X-RateLimit-Reset with a fraction',
    ['upstream', 'webhook'],
    status(429, { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': ((NOW + 2_250) / 1000).toFixed(3) }),
    { waitMs: 2_250, waitSource: 'X-RateLimit-Reset' },
  ],
  ['429 naming no wait: one documented window upstream', ['upstream'], status(429), { waitMs: 60_000, waitSource: 'default' }],
  ['429 naming no wait: at least a second at HubSpot', ['hubspot'], status(429), { waitMs: 1_000, waitSource: 'backoff' }],
  ['429 naming no wait: backoff at a webhook', ['webhook'], status(429), { waitMs: 100, waitSource: 'backoff' }],
  ['429 documented wait when no header', ['hubspot'], status(429), { waitMs: 10_050, waitSource: 'documented' }, { documentedWaitMs: 10_000 }],
  ['429 header wins over a documented wait', ['hubspot'], status(429, { 'retry-after': '3' }), { waitMs: 3_050 }, { documentedWaitMs: 10_000 }],
  [
    'Retry-After 999999999 is cut to maxWaitMs',
    ALL,
    status(429, { 'retry-after': '999999999' }),
    { waitMs: 60_000, serverWaitMs: 60_000, askedWaitMs: 999_999_999_000 },
  ],
  [
    'a reset in the year 3000 is cut to maxWaitMs',
    ['upstream'],
    status(429, { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Date.UTC(3000, 0, 1) / 1000) }),
    { waitMs: 60_000, askedWaitMs: Date.UTC(3000, 0, 1) - NOW },
  ],
  ['a huge Retry-After on a 503 is cut too', ALL, status(503, { 'retry-after': 'Wed, 01 Jan 3000 00:00:00 GMT' }), { waitMs: 60_000 }],
  ['unreadable Retry-After is ignored', ['upstream', 'webhook'], status(503, { 'retry-after': 'soon' }), { waitMs: 100, waitSource: 'backoff' }],
  ['negative Retry-After is ignored', ['upstream', 'webhook'], status(503, { 'retry-after': '-1' }), { waitSource: 'backoff' }],
  ['401', ALL, status(401), { kind: 'auth', retry: false, waitMs: 0 }],
  ['403', ALL, status(403), { kind: 'forbidden', retry: false }],
  ['404', ALL, status(404), { kind: 'not_found', retry: false }],
  ['409', ALL, status(409), { kind: 'conflict', retry: false }],
  ['400', ALL, status(400), { kind: 'bad_request', retry: false }],
  ['422', ALL, status(422), { kind: 'bad_request', retry: false }],
  ['301', ALL, status(301), { kind: 'rejected', retry: false }],
  ['a truncated 200 body', ALL, { status: 200, bodyProblem: 'truncated' }, { kind: 'transient', retry: true }],
  ['a 200 body that is not JSON', ALL, { status: 200, bodyProblem: 'bad_json' }, { kind: 'transient', retry: true }],
  ['a 200 body over the size bound', ALL, { status: 200, bodyProblem: 'too_large' }, { kind: 'transient', retry: true }],
  [
    'a body past its size bound, thrown by the reader',
    ALL,
    thrown('BODY_TOO_LARGE', 'BodyTooLargeError'),
    { kind: 'transient', retry: true, code: 'BODY_TOO_LARGE' },
  ],
  ['ECONNRESET', ALL, thrown('ECONNRESET'), { kind: 'transient', retry: true, waitMs: 100, code: 'ECONNRESET', label: 'ECONNRESET' }],
  ['ECONNREFUSED inside a cause', ALL, wrapped('ECONNREFUSED'), { kind: 'transient', retry: true, code: 'ECONNREFUSED' }],
  ['undici socket error', ALL, thrown('UND_ERR_SOCKET'), { kind: 'transient', retry: true }],
  ['headers timeout', ALL, thrown('UND_ERR_HEADERS_TIMEOUT', 'HeadersTimeoutError'), { kind: 'transient', retry: true, label: 'UND_ERR_HEADERS_TIMEOUT' }],
  ['body timeout', ALL, thrown('UND_ERR_BODY_TIMEOUT'), { kind: 'transient', retry: true }],
  ['content-length mismatch', ALL, thrown('UND_ERR_RES_CONTENT_LENGTH_MISMATCH'), { kind: 'transient', retry: true }],
  ['DNS failure', ALL, thrown('ENOTFOUND'), { kind: 'transient', retry: true }],
  ['AbortSignal.timeout', ALL, named('TimeoutError'), { kind: 'transient', retry: true, label: 'TimeoutError' }],
  ['the caller aborted: final upstream', ['upstream'], named('AbortError'), { kind: 'aborted', retry: false }],
  ['an abort is a timed-out attempt at HubSpot and webhooks', ['hubspot', 'webhook'], thrown('UND_ERR_ABORTED'), { kind: 'aborted', retry: true }],
  ['bad TLS certificate', ALL, thrown('DEPTH_ZERO_SELF_SIGNED_CERT'), { kind: 'tls', retry: false }],
  ['invalid undici argument', ALL, thrown('UND_ERR_INVALID_ARG'), { kind: 'bad_options', retry: false }],
  ['unknown error upstream: passing trouble', ['upstream'], { error: new Error('boom') }, { kind: 'unknown', retry: true, waitMs: 100 }],
  ['unknown error elsewhere: a bug', ['hubspot', 'webhook'], thrown('UND_MOCK_ERR_MOCK_NOT_MATCHED'), { kind: 'unknown', retry: false }],
  ['a thrown string', ['hubspot', 'webhook'], { error: 'weird' }, { kind: 'unknown', retry: false, detail: 'weird' }],
];

describe('classifyHttp: one policy, parameterised per service', () => {
  it.each(
    rows.flatMap(([name, services, outcome, expected, extra]) =>
      services.map((service) => [`${service}: ${name}`, service, outcome, expected, extra] as const),
    ),
  )('%s', (_name, service, outcome, expected, extra) => {
    expect(classifyHttp(outcome, policies[service], { ...context, ...extra })).toMatchObject(expected);
  });

  it('caps the backoff at maxDelayMs for a late attempt', () => {
    expect(classifyHttp(status(502), policies.webhook, { nowMs: NOW, attempt: 40, random: 0.999 }).waitMs).toBe(999);
  });
});
