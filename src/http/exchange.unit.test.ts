import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { send } from './exchange.js';
import type { ExchangeDecision, ExchangeOptions, ExchangeOutcome } from './exchange.js';
import { HttpError, isHttpError } from './http-error.js';
import { BodyTooLargeError } from './exchange.js';
import { trickling } from '../../test/support/trickle.js';

const ORIGIN = 'https://service.example';
const SECRET = 'tok_SECRET_123456';

let agent: MockAgent;
let outcomes: ExchangeOutcome[];
let waits: number[];

beforeEach(() => {
  agent = new MockAgent();
  // A request nobody set up fails, so a count of attempts cannot pass by reaching out.
  agent.disableNetConnect();
  outcomes = [];
  waits = [];
});

afterEach(async () => {
  await agent.close();
});

const path = () => agent.get(ORIGIN).intercept({ path: '/things?page=2', method: 'GET' });

// A decide hook that retries any failure up to three attempts and fails with an HttpError naming the token.
function retryThrice(outcome: ExchangeOutcome, attempt: number): ExchangeDecision<string> {
  outcomes.push(outcome);
  if ('response' in outcome && outcome.response.status === 200) return { action: 'accept', value: outcome.response.body.toString('utf8') };
  if (attempt < 3) return { action: 'retry', waitMs: attempt * 10 };
  return {
    action: 'fail',
    error: new HttpError(`GET /things failed after ${attempt} attempts with ${SECRET}`, { service: 'test', kind: 'transient', code: 'GAVE_UP' }),
  };
}

function exchange(overrides: Partial<ExchangeOptions<string>> = {}): Promise<string> {
  return send<string>({
    dispatcher: agent,
    request: () => ({ url: new URL(`${ORIGIN}/things?page=2`), method: 'GET', headers: { authorization: `Bearer ${SECRET}` } }),
    decide: retryThrice,
    timeoutMs: 1_000,
    maxBodyBytes: 1_024,
    redact: (text) => text.replaceAll(SECRET, '[redacted]'),
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    ...overrides,
  });
}

describe('send: the one exchange', () => {
  it('awaits the budget before every attempt, retries as decide says, and returns what it accepts', async () => {
    path().reply(503, 'busy');
    path().replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    path().reply(200, 'done');
    const acquired: number[] = [];
    await expect(exchange({ acquire: (attempt) => (acquired.push(attempt), Promise.resolve()) })).resolves.toBe('done');
    expect(acquired).toEqual([1, 2, 3]);
    expect(waits).toEqual([10, 20]);
    expect(outcomes[0]).toMatchObject({ response: { status: 503 } });
    expect(outcomes[1]).toMatchObject({ timedOut: false, cancelled: false, error: { code: 'ECONNRESET' } });
    agent.assertNoPendingInterceptors();
  });

  it('throws the failure decide returns, its message redacted', async () => {
    path().reply(500, '').times(3);
    const error = await exchange().catch((caught: unknown) => caught);
    expect(isHttpError(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'transient', code: 'GAVE_UP', service: 'test' });
    expect(String(error)).not.toContain(SECRET);
  });

  it('a body over maxBodyBytes fails the attempt, unread past the bound', async () => {
    path().reply(200, 'x'.repeat(4_096));
    const decide = (outcome: ExchangeOutcome): ExchangeDecision<string> => (outcomes.push(outcome), { action: 'fail', error: new Error('too large') });
    await expect(exchange({ decide })).rejects.toThrow('too large');
    expect(outcomes[0]).toMatchObject({ head: { status: 200 } });
    expect('error' in outcomes[0]! && outcomes[0].error).toBeInstanceOf(BodyTooLargeError);
  });

  it('a trickling body within the deadline is read whole', async () => {
    path().reply(200, 'z'.repeat(200));
    await expect(exchange({ dispatcher: trickling(agent, 4, 5), timeoutMs: 5_000 })).resolves.toBe('z'.repeat(200));
  });

  it("overflow 'cut' keeps the first maxBodyBytes of an answer instead", async () => {
    path().reply(200, 'y'.repeat(4_096));
    await expect(exchange({ overflow: 'cut', maxBodyBytes: 16 })).resolves.toBe('y'.repeat(16));
  });

  it('one deadline covers headers and body: a body that trickles past it times the attempt out', async () => {
    // Headers at once, then a chunk every 30 ms for 20 chunks: no gap reaches the deadline, the whole does.
    path().reply(200, 'z'.repeat(200));
    const decide = (outcome: ExchangeOutcome): ExchangeDecision<string> => (outcomes.push(outcome), { action: 'fail', error: new Error('deadline') });
    await expect(exchange({ decide, dispatcher: trickling(agent, 20, 30), timeoutMs: 150 })).rejects.toThrow('deadline');
    expect(outcomes[0]).toMatchObject({ timedOut: true, cancelled: false, head: { status: 200 } });
  });

  it("tells the caller's cancel apart from the deadline, and stops before an attempt once cancelled", async () => {
    const controller = new AbortController();
    path().reply(200, 'late').delay(400);
    const decide = (outcome: ExchangeOutcome): ExchangeDecision<string> => (outcomes.push(outcome), { action: 'retry', waitMs: undefined });
    setTimeout(() => controller.abort(), 20);
    await expect(exchange({ decide, signal: controller.signal, timeoutMs: 5_000 })).rejects.toMatchObject({ name: 'AbortError' });
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ timedOut: false, cancelled: true });
  });

  it('builds each attempt afresh (a signature, a renewed credential)', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/things?page=2', method: 'GET', headers: { 'x-attempt': '1' } })
      .reply(500, '');
    agent
      .get(ORIGIN)
      .intercept({ path: '/things?page=2', method: 'GET', headers: { 'x-attempt': '2' } })
      .reply(200, 'second');
    const request = (attempt: number) => ({ url: new URL(`${ORIGIN}/things?page=2`), method: 'GET' as const, headers: { 'x-attempt': String(attempt) } });
    await expect(exchange({ request })).resolves.toBe('second');
  });

  it('a request that cannot be built (a login that failed) reaches decide as an unsent failure; nothing is sent', async () => {
    const login = Object.assign(new Error('login refused'), { code: 'LOGIN_FAILED' });
    const request = () => Promise.reject(login);
    const decide = (outcome: ExchangeOutcome): ExchangeDecision<string> => (outcomes.push(outcome), { action: 'fail', error: login });
    await expect(exchange({ request, decide })).rejects.toBe(login);
    expect(outcomes).toEqual([{ error: login, timedOut: false, cancelled: false, unsent: true }]);
  });
});
