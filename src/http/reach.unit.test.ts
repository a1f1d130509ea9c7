import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reachHttp, type ReachOptions, type ReachRetry } from './reach.js';
import { WEBHOOK_TRAITS } from '../../connectors/webhook/classify-delivery.js';
import { servicePolicy, UPSTREAM_TRAITS } from './services.js';

const ORIGIN = 'https://receiver.example';
const URL_ = `${ORIGIN}/hooks/callsync`;
const backoff = { baseDelayMs: 100, maxDelayMs: 1_000 };
const networkError = (code: string): Error => Object.assign(new Error(`socket: ${code}`), { code });

let agent: MockAgent;
let waits: number[];
let retries: ReachRetry[];

beforeEach(() => {
  agent = new MockAgent();
  // A request nobody set up fails, so a count of attempts cannot pass by reaching out.
  agent.disableNetConnect();
  waits = [];
  retries = [];
});

afterEach(async () => {
  await agent.close();
});

function reach(overrides: Partial<ReachOptions> = {}): Promise<number> {
  return reachHttp(URL_, {
    policy: servicePolicy(WEBHOOK_TRAITS, backoff),
    maxAttempts: 4,
    timeoutMs: 1_000,
    dispatcher: agent,
    random: () => 0.5,
    now: () => 0,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    onRetry: (retry) => retries.push(retry),
    ...overrides,
  });
}

const head = () => agent.get(ORIGIN).intercept({ path: '/hooks/callsync', method: 'HEAD' });

describe('reachHttp: any HTTP answer proves the service is there; passing failures are retried with the policy', () => {
  it.each([200, 404, 405, 500, 503])('HTTP %i to HEAD: reachable at the first attempt, no wait', async (status) => {
    head().reply(status, '');
    await expect(reach()).resolves.toBe(status);
    expect(waits).toEqual([]);
    agent.assertNoPendingInterceptors();
  });

  it('a reset, then a refused connection, then an answer: reachable after two waits of full-jitter backoff', async () => {
    head().replyWithError(networkError('ECONNRESET'));
    head().replyWithError(networkError('ECONNREFUSED'));
    head().reply(503, '');
    await expect(reach()).resolves.toBe(503);
    // random 0.5: half of 100 ms, then half of 200 ms.
    expect(waits).toEqual([50, 100]);
    expect(retries.map((retry) => [retry.attempt, retry.maxAttempts, retry.verdict.label])).toEqual([
      [1, 4, 'ECONNRESET'],
      [2, 4, 'ECONNREFUSED'],
    ]);
    agent.assertNoPendingInterceptors();
  });

  it('an attempt that times out is tried again', async () => {
    head().reply(200, '').delay(2_000);
    head().reply(405, '');
    await expect(reach({ timeoutMs: 30 })).resolves.toBe(405);
    expect(waits).toEqual([50]);
    expect(retries[0]?.verdict.kind).toBe('transient');
  });

  it('gives up after maxAttempts and throws the last failure', async () => {
    head().replyWithError(networkError('ECONNREFUSED')).times(3);
    await expect(reach({ maxAttempts: 3 })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(waits).toEqual([50, 100]);
    agent.assertNoPendingInterceptors();
  });

  it('maxAttempts 1 tries once', async () => {
    head().replyWithError(networkError('ECONNRESET'));
    await expect(reach({ maxAttempts: 1 })).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(waits).toEqual([]);
  });

  it('a certificate that does not verify is not retried', async () => {
    head().replyWithError(networkError('CERT_HAS_EXPIRED'));
    await expect(reach()).rejects.toMatchObject({ code: 'CERT_HAS_EXPIRED' });
    expect(waits).toEqual([]);
  });

  it("follows the service's policy: the upstream's backoff settings", async () => {
    head().replyWithError(networkError('ECONNRESET'));
    head().reply(404, '');
    await expect(reach({ policy: servicePolicy(UPSTREAM_TRAITS, { baseDelayMs: 1_000, maxDelayMs: 5_000 }) })).resolves.toBe(404);
    expect(waits).toEqual([500]);
  });
});
