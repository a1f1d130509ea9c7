import { pino } from 'pino';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiAllocation } from './allocation.js';
import type { SalesforceLimits } from './config.js';
import { SalesforceError } from './errors.js';
import { SalesforceHttp, type TokenSource } from './client.js';

const ORIGIN = 'https://acme.my.salesforce.com';
const LIMITS: SalesforceLimits = { share: 1, requestsPer24h: null, windowSeconds: 86_400, maxWaitSeconds: 0 };
const limitInfo = { 'sforce-limit-info': 'api-usage=5/1000' };

let agent: MockAgent;
afterEach(async () => agent.close());

/** Tokens `t1`, `t2`, …: a new one after each invalidation; the invalidated ones are recorded. */
function tokens(): TokenSource & { invalidated: string[] } {
  let serial = 1;
  const invalidated: string[] = [];
  return {
    invalidated,
    session: () => Promise.resolve({ accessToken: `t${serial}`, instanceUrl: ORIGIN }),
    invalidate(token) {
      invalidated.push(token);
      serial += 1;
    },
  };
}

function client(source: TokenSource = tokens()): { http: SalesforceHttp; allocation: ApiAllocation } {
  agent = new MockAgent();
  agent.disableNetConnect();
  const clock = { now: () => Date.now(), sleep: () => Promise.resolve() };
  const logger = pino({ level: 'silent' });
  const allocation = new ApiAllocation(LIMITS, clock, logger);
  const http = new SalesforceHttp({
    dispatcher: agent,
    tokens: source,
    allocation,
    retry: { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 },
    apiVersion: '62.0',
    logger,
    clock,
    clean: (text) => text,
  });
  return { http, allocation };
}

describe('SalesforceHttp (MockAgent through the injected dispatcher)', () => {
  it('renews the session once on 401 INVALID_SESSION_ID and sends the request again with the new token', async () => {
    const source = tokens();
    const { http } = client(source);
    const pool = agent.get(ORIGIN);
    pool
      .intercept({ path: '/services/data/v62.0/limits', method: 'GET', headers: { authorization: 'Bearer t1' } })
      .reply(401, [{ errorCode: 'INVALID_SESSION_ID', message: 'Session expired or invalid' }], { headers: limitInfo });
    pool
      .intercept({ path: '/services/data/v62.0/limits', method: 'GET', headers: { authorization: 'Bearer t2' } })
      .reply(200, { ok: true }, { headers: limitInfo });
    expect(await http.send('GET', '/limits')).toEqual({ status: 200, body: { ok: true } });
    expect(source.invalidated).toEqual(['t1']);
  });

  it('retries a 503 and gives a refusal its errorCode without retrying it', async () => {
    const { http } = client();
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/services/data/v62.0/sobjects/Task/describe', method: 'GET' }).reply(503, 'down');
    pool.intercept({ path: '/services/data/v62.0/sobjects/Task/describe', method: 'GET' }).reply(200, { name: 'Task' }, { headers: limitInfo });
    expect((await http.send('GET', '/sobjects/Task/describe')).body).toEqual({ name: 'Task' });
    pool
      .intercept({ path: /\/services\/data\/v62\.0\/query\?q=/, method: 'GET' })
      .reply(400, [{ errorCode: 'MALFORMED_QUERY', message: 'unexpected token' }], { headers: limitInfo });
    const refused = await http.send('GET', '/query?q=SELEC').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SalesforceError);
    expect(refused).toMatchObject({ problem: 'refused', kind: 'invalid', errorCode: 'MALFORMED_QUERY', status: 400, service: 'salesforce' });
  });

  it('stops at REQUEST_LIMIT_EXCEEDED, saying until when, when that is further off than maxWaitSeconds', async () => {
    const { http } = client();
    agent
      .get(ORIGIN)
      .intercept({ path: '/services/data/v62.0/limits', method: 'GET' })
      .reply(403, [{ errorCode: 'REQUEST_LIMIT_EXCEEDED', message: 'TotalRequests Limit exceeded.' }], {
        headers: { 'sforce-limit-info': 'api-usage=1000/1000' },
      });
    const stopped = (await http.send('GET', '/limits').then(
      () => undefined,
      (error: unknown) => error,
    )) as SalesforceError;
    expect(stopped).toMatchObject({ problem: 'allocation', kind: 'daily_limit' });
    expect(stopped.message).toMatch(/api-usage=1000\/1000\); writing stops until \d{4}-\d\d-\d\dT/);
    expect(stopped.resumeAt).toBeGreaterThan(Date.now());
  });

  it('sends nothing the mock does not expect (the interception is real)', async () => {
    const { http } = client();
    await expect(http.send('GET', '/limits')).rejects.toThrow(/salesforce GET \/services\/data\/v62\.0\/limits/);
  });

  it('retries a 200 whose body is not JSON, then fails saying so; an empty 204 is an answer', async () => {
    const { http } = client();
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/services/data/v62.0/limits', method: 'GET' }).reply(200, '<html>proxy</html>', { headers: limitInfo }).times(3);
    const error = await http.send('GET', '/limits').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ problem: 'transient', status: 200 });
    expect((error as Error).message).toContain('salesforce GET /services/data/v62.0/limits answered 200 with a body that is not JSON');
    pool.intercept({ path: '/services/data/v62.0/sobjects/Task/00T1', method: 'DELETE' }).reply(204, '', { headers: limitInfo });
    expect(await http.send('DELETE', '/sobjects/Task/00T1')).toEqual({ status: 204, body: undefined });
    agent.assertNoPendingInterceptors();
  });
});
