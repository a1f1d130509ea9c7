import { afterEach, describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import { createUpstreamClient } from './client.js';
import { BASE, EMAIL, expectNoSecrets, mockAgent, PASSWORD, rejectionOf } from '../../../test/support/upstream-mock.js';
import { cookieHeader } from './session.js';

let agent: MockAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

function sessionClient() {
  agent = mockAgent();
  return createUpstreamClient({ baseUrl: BASE, timeoutMs: 5_000, credentials: { session: { email: EMAIL, password: PASSWORD } }, dispatcher: agent });
}

function mock(): MockAgent {
  if (agent === undefined) throw new Error('create the client first');
  return agent;
}

function expectLogin(cookie: string, times = 1): void {
  mock()
    .get(BASE)
    .intercept({ path: '/api/v1/auth/login', method: 'POST', body: JSON.stringify({ email: EMAIL, password: PASSWORD }) })
    .reply(200, { ok: true }, { headers: { 'set-cookie': [`sid=${cookie}; Path=/; HttpOnly`, 'theme=dark; Path=/'] } })
    .times(times);
}

describe('session auth', () => {
  it('joins the name=value of every Set-Cookie', () => {
    expect(cookieHeader(['a=1; Path=/', 'b=2; HttpOnly'])).toBe('a=1; b=2');
    expect(cookieHeader('sid=x; Secure')).toBe('sid=x');
    expect(cookieHeader(['garbage'])).toBeUndefined();
    expect(cookieHeader(undefined)).toBeUndefined();
  });

  it('logs in once, reuses the cookie, and does not count against the rate limit', async () => {
    const upstream = sessionClient();
    expectLogin('first');
    mock()
      .get(BASE)
      .intercept({ path: '/api/v1/numbers', headers: { cookie: 'sid=first; theme=dark' } })
      .reply(200, { numbers: [], total: 0 })
      .times(3);
    const responses = await Promise.all([upstream.get('v1', '/numbers'), upstream.get('v1', '/numbers'), upstream.get('v1', '/numbers')]);
    expect(responses.map((r) => r.payload)).toEqual([
      { numbers: [], total: 0 },
      { numbers: [], total: 0 },
      { numbers: [], total: 0 },
    ]);
    expect(upstream.countsAgainstRateLimit.v1).toBe(false);
    mock().assertNoPendingInterceptors();
  });

  it('logs in again once on a 401 and goes on with the new cookie', async () => {
    const upstream = sessionClient();
    expectLogin('first');
    mock()
      .get(BASE)
      .intercept({ path: '/api/v1/numbers', headers: { cookie: 'sid=first; theme=dark' } })
      .reply(200, { numbers: [] });
    mock()
      .get(BASE)
      .intercept({ path: '/api/v1/calls', headers: { cookie: 'sid=first; theme=dark' } })
      .reply(401, { error: 'Session expired' });
    expectLogin('second');
    mock()
      .get(BASE)
      .intercept({ path: '/api/v1/calls', headers: { cookie: 'sid=second; theme=dark' } })
      .reply(200, { data: { calls: [] } });
    await upstream.get('v1', '/numbers');
    expect((await upstream.get('v1', '/calls')).payload).toEqual({ calls: [] });
    mock().assertNoPendingInterceptors();
  });

  it('fails with kind auth when the new login is refused too', async () => {
    const upstream = sessionClient();
    expectLogin('first');
    mock().get(BASE).intercept({ path: '/api/v1/calls' }).reply(401, { error: 'Session expired' });
    expectLogin('second');
    mock().get(BASE).intercept({ path: '/api/v1/calls' }).reply(401, { error: 'Session expired' });
    const error = await rejectionOf(upstream.get('v1', '/calls'));
    expect(error).toMatchObject({ kind: 'auth', code: 'UNAUTHORIZED', status: 401 });
    expectNoSecrets(error, [PASSWORD, 'sid=second']);
    mock().assertNoPendingInterceptors();
  });

  it('reports a refused login as LOGIN_FAILED without the password', async () => {
    const upstream = sessionClient();
    mock().get(BASE).intercept({ path: '/api/v1/auth/login', method: 'POST' }).reply(401, { error: 'Invalid email or password' });
    const error = await rejectionOf(upstream.get('v1', '/calls'));
    expect(error).toMatchObject({ kind: 'auth', code: 'LOGIN_FAILED', status: 401, request: { method: 'POST', path: '/api/v1/auth/login' } });
    expect((error as Error).message).toContain('Invalid email or password');
    expectNoSecrets(error);
  });

  it('reports a login that sets no cookie as LOGIN_FAILED', async () => {
    const upstream = sessionClient();
    mock().get(BASE).intercept({ path: '/api/v1/auth/login', method: 'POST' }).reply(200, { ok: true });
    expect(await rejectionOf(upstream.get('v1', '/calls'))).toMatchObject({ kind: 'auth', code: 'LOGIN_FAILED' });
  });

  it('keeps a login that hit a server failure transient', async () => {
    const upstream = sessionClient();
    mock().get(BASE).intercept({ path: '/api/v1/auth/login', method: 'POST' }).reply(503, 'down');
    expect(await rejectionOf(upstream.get('v1', '/calls'))).toMatchObject({ kind: 'transient', code: 'SERVER_ERROR' });
  });
});
