import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { trickling } from '../../test/support/trickle.js';
import type { HubSpotHttp, HubSpotHttpOptions } from './client.js';
import { fakeClock, mockedHubSpotHttp, ORIGIN } from '../../test/support/hubspot-mock-portal.js';

const TOKEN = 'pat-na1-unit-test-token';

describe('HubSpotHttp over an injected dispatcher', () => {
  let agent: MockAgent;
  let clock: ReturnType<typeof fakeClock>;
  let http: HubSpotHttp;

  const client = (overrides: Partial<HubSpotHttpOptions> = {}) =>
    mockedHubSpotHttp(agent, clock, { token: TOKEN, retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000 }, ...overrides });

  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    clock = fakeClock();
    http = client();
  });
  afterEach(async () => agent.close());

  it('sends the bearer token through the mock and returns the body', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/crm/v3/properties/calls/callsync_id', method: 'GET', headers: { authorization: `Bearer ${TOKEN}` } })
      .reply(200, { name: 'callsync_id', hasUniqueValue: true });
    await expect(http.send('GET', '/crm/v3/properties/calls/callsync_id')).resolves.toEqual({
      status: 200,
      body: { name: 'callsync_id', hasUniqueValue: true },
    });
    agent.assertNoPendingInterceptors();
  });

  it('fails an unexpected request instead of reaching the network, without the token', async () => {
    const error = await http.send('POST', '/crm/v3/objects/calls/batch/upsert', { inputs: [] }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'HubSpotError', kind: 'internal', cause: { code: 'UND_MOCK_ERR_MOCK_NOT_MATCHED' } });
    expect(String((error as Error).message) + String((error as Error).cause)).not.toContain(TOKEN);
  });

  it('waits the advertised interval after a 429 TEN_SECONDLY_ROLLING, then succeeds', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/x', method: 'GET' }).reply(
      429,
      { status: 'error', errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING', message: 'limit' },
      {
        headers: { 'x-hubspot-ratelimit-interval-milliseconds': '10000', 'x-hubspot-ratelimit-max': '100', 'x-hubspot-ratelimit-remaining': '0' },
      },
    );
    pool.intercept({ path: '/x', method: 'GET' }).reply(200, {});
    await expect(http.send('GET', '/x')).resolves.toMatchObject({ status: 200 });
    expect(clock.slept.reduce((sum, ms) => sum + ms, 0)).toBeGreaterThanOrEqual(10_000);
  });

  it('stops sending once Daily-Remaining reached 0', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/x', method: 'GET' })
      .reply(200, {}, { headers: { 'x-hubspot-ratelimit-daily-remaining': '0' } });
    await http.send('GET', '/x');
    await expect(http.send('GET', '/x')).rejects.toMatchObject({ kind: 'daily_limit' });
  });

  it('fails an answer over maxBodyBytes with an error naming the bound, after the attempts the policy allows', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/crm/v3/objects/calls/search', method: 'POST' })
      .reply(200, { results: 'x'.repeat(4_096) })
      .times(3);
    const error = await client({ maxBodyBytes: 1_024 })
      .send('POST', '/crm/v3/objects/calls/search', {}, 'search')
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'HubSpotError', kind: 'transient', service: 'hubspot' });
    expect((error as Error).message).toContain('body larger than 1024 bytes (maxBodyBytes)');
    expect(clock.slept).toHaveLength(2);
    agent.assertNoPendingInterceptors();
  });

  it('fails a body that trickles past the whole-request deadline, though no gap between chunks reaches it', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/x', method: 'GET' })
      .reply(200, { results: 'y'.repeat(200) })
      .times(3);
    const slow = client({ dispatcher: trickling(agent, 20, 30), timeoutMs: 150 });
    const error = await slow.send('GET', '/x').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'HubSpotError', kind: 'transient' });
    expect((error as Error).message).toContain('no complete answer within 150 ms (timeoutMs)');
    expect(String(error) + String((error as Error).cause)).not.toContain(TOKEN);
  });

  it('retries a 200 whose body is not JSON, then fails saying so; an empty 2xx is an answer', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/x', method: 'GET' }).reply(200, '<html>gateway</html>').times(3);
    const error = await http.send('GET', '/x').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'HubSpotError', kind: 'transient' });
    expect((error as Error).message).toContain('HTTP 200 with a body that is not JSON');
    expect(clock.slept).toHaveLength(2);
    pool.intercept({ path: '/y', method: 'PUT' }).reply(204, '');
    await expect(http.send('PUT', '/y')).resolves.toEqual({ status: 204, body: undefined });
    agent.assertNoPendingInterceptors();
  });
});
