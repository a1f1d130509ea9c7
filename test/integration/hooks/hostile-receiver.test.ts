import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanupSteps } from '../support/cleanup-steps.js';
import { waitFor } from '../worker/harness.js';
import { deliver, openDelivery, signed, startReceiver, statusOf, wellFormedForgery, type RawDelivery } from './hostile-client.js';

/**
 * The receiver against the attacks of issue 30: stalled bodies, junk signatures, bodies parsed
 * before their signature, unread 413s and aborted bodies. Each test measures a bounded quantity
 * (bytes held, who answered, what was parsed, log lines), not a time.
 */
const SECRET = 'acme-secret-1';
const BUSINESSES = new Map([['acme', { secret: SECRET, streams: ['calls'] }]]);
const MB = 1_048_576;

describe('webhook receiver under attack', () => {
  const cleanup = cleanupSteps();
  afterEach(() => vi.restoreAllMocks());

  async function stall(url: string, headers: Record<string, string>, localAddress: string, sent = MB / 2): Promise<RawDelivery> {
    const delivery = await openDelivery(url, '/hooks/acme', { ...headers, 'content-length': String(MB) }, localAddress);
    delivery.socket.write(Buffer.alloc(sent, 0x20));
    cleanup.push(() => Promise.resolve(delivery.socket.destroy()));
    return delivery;
  }

  it('refuses a delivery signed for one business at another business path, where the payload names its business', async () => {
    const shared = new Map([
      ['biz1', { secret: 'one-global-secret', streams: ['calls'] }],
      ['biz2', { secret: 'one-global-secret', streams: ['calls'] }],
    ]);
    const hooks = await startReceiver({ businessFrom: { field: 'account' } }, shared);
    cleanup.push(() => hooks.close());
    const body = '{"account":"biz1","event":"call.created"}';
    const headers = signed('one-global-secret', body);
    expect(await deliver(hooks.url, '/hooks/biz2', body, headers)).toBe(403);
    expect(await deliver(hooks.url, '/hooks/biz1', body, headers)).toBe(202);
    expect(await deliver(hooks.url, '/hooks', body, headers)).toBe(202);
    expect(hooks.outcomes).toEqual(['wrong_business', 'accepted', 'accepted']);
    expect(hooks.triggered).toEqual(['biz1', 'biz1']);
  });

  it('refuses junk signature headers with 401 before the sender has written a byte of the body', { timeout: 20_000 }, async () => {
    const hooks = await startReceiver({}, BUSINESSES);
    cleanup.push(() => hooks.close());
    const junk: Record<string, string>[] = [
      { 'x-webhook-timestamp': '1', 'x-webhook-signature': 'aa' },
      { 'x-webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'x-webhook-signature': 'aa' },
      { 'x-webhook-signature': 'f'.repeat(64) },
    ];
    for (const headers of junk) {
      // Headers and a declared 1 MB, then nothing: the answer must not wait for the body.
      const delivery = await openDelivery(hooks.url, '/hooks/acme', { ...headers, 'content-length': String(MB) });
      cleanup.push(() => Promise.resolve(delivery.socket.destroy()));
      expect(statusOf(await delivery.answer)).toBe(401);
    }
    expect(hooks.outcomes).toEqual(['replayed', 'unauthorized', 'unauthorized']);
    expect(hooks.receiver.inFlight()).toEqual({ deliveries: 0, bytes: 0 });
  });

  it(
    'keeps stalled bodies with well-formed forged signatures within the byte budget, a quarter per address, and still accepts a valid delivery',
    { timeout: 30_000 },
    async () => {
      // streamField: the body is kept after its signature, so it counts against the budget.
      const hooks = await startReceiver({ streamField: 'event', maxBytesInFlight: 4 * MB, bodyTimeoutMs: 60_000 }, BUSINESSES);
      cleanup.push(() => hooks.close());
      const answers: number[] = [];
      for (const address of ['127.0.0.2', '127.0.0.3', '127.0.0.4']) {
        for (let i = 0; i < 5; i++) void (await stall(hooks.url, wellFormedForgery(), address)).answer.then((answer) => answers.push(statusOf(answer)));
      }
      await waitFor('the refusals', () => (answers.length === 12 ? true : undefined), 10_000, 20);
      // One body of 1 MB per address (its quarter of 4 MB); the other four of each were told to come back.
      expect(answers).toEqual(Array(12).fill(503));
      expect(hooks.receiver.inFlight()).toEqual({ deliveries: 3, bytes: 3 * MB });
      const body = '{"event":"call.created"}';
      expect(await deliver(hooks.url, '/hooks/acme', body, signed(SECRET, body), '127.0.0.5')).toBe(202);
      expect(hooks.triggered).toEqual(['acme']);
    },
  );

  it('cuts a stalled body at the body deadline with 408 and holds nothing after', { timeout: 20_000 }, async () => {
    const hooks = await startReceiver({ streamField: 'event', bodyTimeoutMs: 300 }, BUSINESSES);
    cleanup.push(() => hooks.close());
    const delivery = await stall(hooks.url, wellFormedForgery(), '127.0.0.2');
    const { received } = await delivery.ended;
    expect(statusOf(received)).toBe(408);
    expect(hooks.outcomes).toEqual(['timeout']);
    expect(hooks.receiver.inFlight()).toEqual({ deliveries: 0, bytes: 0 });
  });

  it('caps connections per address: the next one is closed unanswered while another address is accepted', { timeout: 20_000 }, async () => {
    const hooks = await startReceiver({ maxConnectionsPerClient: 3 }, BUSINESSES);
    cleanup.push(() => hooks.close());
    for (let i = 0; i < 3; i++) await stall(hooks.url, wellFormedForgery(), '127.0.0.2');
    const body = '{}';
    const fourth = await openDelivery(hooks.url, '/hooks/acme', { ...signed(SECRET, body), 'content-length': '2' }, '127.0.0.2');
    fourth.socket.write(body);
    expect((await fourth.ended).received).toBe('');
    expect(await deliver(hooks.url, '/hooks/acme', body, signed(SECRET, body), '127.0.0.3')).toBe(202);
  });

  it('checks the signature over the raw bytes before parsing anything: junk JSON with a forged signature is never parsed', { timeout: 30_000 }, async () => {
    const hooks = await startReceiver({ businessFrom: { field: 'account' }, streamField: 'event' }, BUSINESSES);
    cleanup.push(() => hooks.close());
    const parse = vi.spyOn(JSON, 'parse');
    const junk = '['.repeat(MB);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push(await deliver(hooks.url, '/hooks', junk, wellFormedForgery()));
    expect(statuses).toEqual(Array(10).fill(401));
    expect(parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length >= MB)).toEqual([]);
  });

  it('lets 10 of 10 senders of a 10 MB body with Connection: close read their 413', { timeout: 60_000 }, async () => {
    const hooks = await startReceiver({}, BUSINESSES);
    cleanup.push(() => hooks.close());
    const big = Buffer.alloc(10 * MB, 0x20);
    const results: { status: number; error: string | undefined }[] = [];
    for (let i = 0; i < 10; i++) {
      const delivery = await openDelivery(hooks.url, '/hooks/acme', { ...signed(SECRET, ''), 'content-length': String(big.length), connection: 'close' });
      // Written whole, as a sender that reads its answer only after its body does.
      delivery.socket.write(big);
      const { received, error } = await delivery.ended;
      results.push({ status: statusOf(received), error });
    }
    expect(results).toEqual(Array(10).fill({ status: 413, error: undefined }));
  });

  it('counts bodies cut off by their senders and says so in one log line, not one each', { timeout: 30_000 }, async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _encoding, done) => done(void lines.push(chunk.toString())) }));
    const hooks = await startReceiver({}, BUSINESSES, { logger });
    cleanup.push(() => hooks.close());
    for (let i = 0; i < 20; i++) {
      const delivery = await stall(hooks.url, wellFormedForgery(), '127.0.0.2', 1_000);
      const before = hooks.outcomes.length + lines.length;
      delivery.socket.destroy();
      await waitFor('the abort to be seen', () => (hooks.outcomes.length + lines.length > before ? true : undefined), 10_000, 5);
    }
    expect(hooks.outcomes).toEqual(Array(20).fill('aborted'));
    const aborted = lines.filter((line) => /abort|cut off|could not answer/i.test(line));
    expect(aborted).toHaveLength(1);
    expect(JSON.parse(aborted[0]!)).toMatchObject({ level: 40, count: 1 });
  });
});
