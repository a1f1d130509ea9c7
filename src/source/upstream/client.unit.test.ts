import { afterEach, describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import { createUpstreamClient } from './client.js';
import { isUpstreamError, UpstreamError } from './errors.js';
import { API_KEY, BASE, expectNoSecrets, mockAgent, RATE_HEADERS, rejectionOf, V2, V2_TOKEN } from '../../../test/support/upstream-mock.js';

let agent: MockAgent;
afterEach(async () => {
  await agent.close();
});

function client(credentials: Parameters<typeof createUpstreamClient>[0]['credentials'] = { apiKey: API_KEY, v2Token: V2_TOKEN }) {
  agent = mockAgent();
  return createUpstreamClient({ baseUrl: BASE, v2BaseUrl: V2, timeoutMs: 5_000, credentials, dispatcher: agent });
}

describe('upstream client over a MockAgent', () => {
  it('fails an unexpected request, proving the mock intercepts', async () => {
    const upstream = client();
    const error = await rejectionOf(upstream.get('v1', '/calls'));
    expect(isUpstreamError(error)).toBe(true);
    expect((error as UpstreamError).cause).toMatchObject({ code: 'UND_MOCK_ERR_MOCK_NOT_MATCHED' });
  });

  it('unwraps the data envelope, sends the API key and reads the rate-limit headers', async () => {
    const upstream = client();
    agent
      .get(BASE)
      .intercept({ path: '/api/v1/calls?limit=500&cursor=abc', method: 'GET', headers: { authorization: `Bearer ${API_KEY}` } })
      .reply(200, { data: { calls: [{ id: 'c1' }], has_more: false } }, { headers: RATE_HEADERS });
    const response = await upstream.get('v1', '/calls', { limit: 500, cursor: 'abc', offset: undefined });
    expect(response).toMatchObject({
      status: 200,
      payload: { calls: [{ id: 'c1' }], has_more: false },
      rateLimit: { limit: 60, remaining: 59, resetAtMs: 1_763_782_967_250 },
    });
    expect(upstream.countsAgainstRateLimit).toEqual({ v1: true, v2: true });
    agent.assertNoPendingInterceptors();
  });

  it('says when a body was not UTF-8: the payload keeps U+FFFD where its bad bytes were', async () => {
    const upstream = client();
    const body = Buffer.concat([Buffer.from('{"data":{"calls":[{"id":"c1","note":"caf'), Buffer.from([0xe9]), Buffer.from('"}]}}')]);
    agent.get(BASE).intercept({ path: '/api/v1/calls' }).reply(200, body);
    agent
      .get(BASE)
      .intercept({ path: '/api/v1/numbers' })
      .reply(200, { data: { numbers: [] } });
    const bad = await upstream.get('v1', '/calls');
    expect(bad).toMatchObject({ replacedUtf8: true, payload: { calls: [{ id: 'c1', note: 'caf\uFFFD' }] } });
    expect((await upstream.get('v1', '/numbers')).replacedUtf8).toBe(false);
  });

  it('accepts a top-level legacy payload', async () => {
    const upstream = client();
    agent.get(BASE).intercept({ path: '/api/v1/numbers' }).reply(200, { numbers: [], total: 0 });
    expect((await upstream.get('v1', '/numbers')).payload).toEqual({ numbers: [], total: 0 });
  });

  it('sends the v2 token to the v2 host', async () => {
    const upstream = client();
    agent
      .get(V2)
      .intercept({ path: '/api/all/voicemails?limit=25', headers: { authorization: `Bearer ${V2_TOKEN}` } })
      .reply(200, { voicemail: [] });
    expect((await upstream.get('v2', '/api/all/voicemails', { limit: 25 })).payload).toEqual({ voicemail: [] });
  });

  it.each([
    ['ordinary v1 error', 401, { error: { code: '401', message: 'Invalid API key' } }, 'auth', 'UNAUTHORIZED', 'Invalid API key'],
    [
      'rate-limit body',
      429,
      { error: 'rate_limit_exceeded', message: 'Limit 60 per minute; retry in 20 seconds', retry_after: 20 },
      'rate_limited',
      'RATE_LIMITED',
      'retry in 20 seconds',
    ],
    ['session-style error', 400, { error: 'Invalid request: limit must be a number' }, 'invalid', 'BAD_REQUEST', 'limit must be a number'],
    ['non-JSON body', 502, '<html>Bad Gateway</html>', 'transient', 'SERVER_ERROR', 'Bad Gateway'],
    ['forbidden', 403, { error: { code: '403', message: 'Insufficient role' } }, 'forbidden', 'FORBIDDEN', 'Insufficient role'],
    ['not found', 404, { error: { code: '404', message: 'No such resource' } }, 'invalid', 'NOT_FOUND', 'No such resource'],
  ])('turns a %s into an UpstreamError', async (_name, status, body, kind, code, message) => {
    const upstream = client();
    agent
      .get(BASE)
      .intercept({ path: '/api/v1/calls?cursor=SECRETCURSOR' })
      .reply(status, body, { headers: { ...RATE_HEADERS, 'retry-after': '20' } });
    const error = await rejectionOf(upstream.get('v1', '/calls', { cursor: 'SECRETCURSOR' }));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind, code, status, request: { method: 'GET', host: 'calls.example.com', path: '/api/v1/calls' } });
    expect((error as Error).message).toContain(message);
    expect((error as UpstreamError).rateLimit).toEqual({ limit: 60, remaining: 59, resetAtMs: 1_763_782_967_250 });
    if (status === 429) expect((error as UpstreamError).retryAfterMs).toBe(20_000);
    expectNoSecrets(error, [API_KEY, V2_TOKEN, 'SECRETCURSOR']);
  });

  it('treats a 200 that is not a JSON object as transient BAD_JSON', async () => {
    const upstream = client();
    agent.get(BASE).intercept({ path: '/api/v1/calls' }).reply(200, '{"data":{"calls":[{"id":"c1"');
    agent.get(BASE).intercept({ path: '/api/v1/numbers' }).reply(200, '[1,2]');
    expect(await rejectionOf(upstream.get('v1', '/calls'))).toMatchObject({ kind: 'transient', code: 'BAD_JSON', status: 200 });
    expect(await rejectionOf(upstream.get('v1', '/numbers'))).toMatchObject({ kind: 'transient', code: 'BAD_JSON' });
  });

  it('wraps a network failure with its code and cause', async () => {
    const upstream = client();
    agent
      .get(BASE)
      .intercept({ path: '/api/v1/calls' })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const error = await rejectionOf(upstream.get('v1', '/calls'));
    expect(error).toMatchObject({ kind: 'transient', code: 'ECONNRESET' });
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('refuses an interface without credentials before sending anything', async () => {
    const upstream = client({ apiKey: API_KEY });
    expect(await rejectionOf(upstream.get('v2', '/api/all/calls'))).toMatchObject({ kind: 'auth', code: 'MISSING_CREDENTIALS' });
  });

  it('keeps a secret out of the message even when the server echoes it', async () => {
    const upstream = client();
    agent
      .get(BASE)
      .intercept({ path: '/api/v1/calls' })
      .reply(401, { error: { code: '401', message: `Key ${API_KEY} revoked` } });
    const error = await rejectionOf(upstream.get('v1', '/calls'));
    expect((error as Error).message).toContain('[redacted]');
    expectNoSecrets(error);
  });

  it('scrubs a key echoed at position 190 before cutting the message at 200 characters', async () => {
    const upstream = client();
    const prefix = 'Authorization: Bearer ';
    const echoed = `${'x'.repeat(190 - prefix.length)}${prefix}${API_KEY} was sent; ${'y'.repeat(300)}`;
    agent
      .get(BASE)
      .intercept({ path: '/api/v1/calls' })
      .reply(400, { error: { code: '400', message: echoed } });
    const error = await rejectionOf(upstream.get('v1', '/calls'));
    const fragments = Array.from({ length: API_KEY.length - 7 }, (_, index) => API_KEY.slice(index, index + 8));
    expectNoSecrets(error, fragments);
    expect((error as Error).message).toContain(`${prefix}[redacted]`);
  });

  it('strips terminal escapes a server puts in its message', async () => {
    const upstream = client();
    agent
      .get(BASE)
      .intercept({ path: '/api/v1/calls' })
      .reply(400, { error: { message: 'bad\u001b[2J\u001b]0;pwned\u0007 cursor' } });
    const error = await rejectionOf(upstream.get('v1', '/calls'));
    expect((error as Error).message).toMatch(/bad cursor$/);
  });

  it('leaves an injected dispatcher open on close', async () => {
    const upstream = client();
    await upstream.close();
    agent
      .get(BASE)
      .intercept({ path: '/api/v1/numbers' })
      .reply(200, { data: { numbers: [] } });
    expect((await upstream.get('v1', '/numbers')).payload).toEqual({ numbers: [] });
  });
});
