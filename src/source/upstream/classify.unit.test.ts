import { describe, expect, it } from 'vitest';
import { classifyFailure, DEFAULT_RATE_LIMIT_WAIT_MS } from './classify.js';

const NOW = Date.UTC(2025, 10, 22, 3, 0, 0);

function netError(code: string, wrap = false): Error {
  const error = Object.assign(new Error(`network ${code}`), { code });
  return wrap ? new TypeError('fetch failed', { cause: error }) : error;
}

describe('classifyFailure', () => {
  it.each([
    ['UND_ERR_SOCKET', netError('UND_ERR_SOCKET'), 'transient', true],
    ['ECONNRESET', netError('ECONNRESET'), 'transient', true],
    ['ECONNREFUSED inside a cause', netError('ECONNREFUSED', true), 'transient', true],
    ['connect timeout', netError('UND_ERR_CONNECT_TIMEOUT'), 'transient', true],
    ['headers timeout', netError('UND_ERR_HEADERS_TIMEOUT'), 'transient', true],
    ['body timeout', netError('UND_ERR_BODY_TIMEOUT'), 'transient', true],
    ['content-length mismatch', netError('UND_ERR_RES_CONTENT_LENGTH_MISMATCH'), 'transient', true],
    ['DNS failure', netError('ENOTFOUND'), 'transient', true],
    ['unknown error', new Error('boom'), 'transient', true],
    ['aborted', netError('UND_ERR_ABORTED'), 'transient', false],
    ['AbortError', Object.assign(new Error('aborted'), { name: 'AbortError' }), 'transient', false],
    ['bad TLS certificate', netError('DEPTH_ZERO_SELF_SIGNED_CERT'), 'invalid', false],
    ['invalid undici argument', netError('UND_ERR_INVALID_ARG'), 'invalid', false],
    ['truncated 200 body', { status: 200, bodyProblem: 'truncated' }, 'transient', true],
    ['non-JSON 200 body', { status: 200, bodyProblem: 'bad_json' }, 'transient', true],
    ['500', { status: 500 }, 'transient', true],
    ['502 with HTML', { status: 502, body: '<html>bad gateway</html>' }, 'transient', true],
    ['503', { status: 503 }, 'transient', true],
    ['408', { status: 408 }, 'transient', true],
    ['401', { status: 401, body: { error: { code: '401', message: 'Invalid API key' } } }, 'auth', false],
    ['403', { status: 403 }, 'forbidden', false],
    ['400', { status: 400, body: { error: 'cursor expired' } }, 'invalid', false],
    ['404', { status: 404 }, 'invalid', false],
    ['422', { status: 422 }, 'invalid', false],
    ['429', { status: 429 }, 'rate_limited', true],
  ])('%s → %s (retry %s)', (_name, failure, kind, retry) => {
    const result = classifyFailure(failure, NOW);
    expect(result).toMatchObject({ kind, retry });
    expect(result.reason).not.toBe('');
  });

  it.each([
    [
      'retry_after in the body',
      { status: 429, body: { error: 'rate_limit_exceeded', message: 'wait', retry_after: 17 }, headers: { 'retry-after': '99' } },
      17_000,
    ],
    ['Retry-After seconds', { status: 429, headers: { 'retry-after': '12' } }, 12_000],
    ['Retry-After HTTP date', { status: 429, headers: { 'retry-after': new Date(NOW + 30_000).toUTCString() } }, 30_000],
    [
      'X-RateLimit-Reset with a fraction',
      { status: 429, headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': ((NOW + 2_250) / 1000).toFixed(3) } },
      2_250,
    ],
    ['nothing at all', { status: 429 }, DEFAULT_RATE_LIMIT_WAIT_MS],
  ])('429 waits as said by %s', (_name, failure, waitMs) => {
    expect(classifyFailure(failure, NOW)).toMatchObject({ kind: 'rate_limited', retry: true, waitMs, code: 'RATE_LIMITED' });
  });

  it.each([
    [431, /^HTTP 431: the request line or headers are larger than the server accepts$/],
    [414, /^HTTP 414: the URL is longer than the server accepts$/],
  ])('%i: the request was too large, named as such, not retried, with a fix naming what to check', (status, reason) => {
    const result = classifyFailure({ status }, NOW);
    expect(result).toMatchObject({ kind: 'invalid', retry: false, code: 'REQUEST_TOO_LARGE' });
    expect(result.reason).toMatch(reason);
    expect(result.fix).toMatch(/businesses\[\]\.apiKey.*proxy/);
  });

  it('honours Retry-After on a 503', () => {
    expect(classifyFailure({ status: 503, headers: { 'Retry-After': '5' } }, NOW)).toMatchObject({ waitMs: 5_000, code: 'SERVER_ERROR' });
  });
});
