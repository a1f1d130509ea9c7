import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BodyLengthError, BodyTooLargeError, send } from './exchange.js';
import type { ExchangeOutcome, ExchangeOptions } from './exchange.js';

const ORIGIN = 'https://recordings.example';

let agent: MockAgent;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});

afterEach(async () => {
  await agent.close();
});

const recording = () => agent.get(ORIGIN).intercept({ path: '/r/1.wav', method: 'GET' });

/** A consumer that hashes what it reads, as a store would write it: never more than a chunk held. */
function hashing() {
  const seen = { bytes: 0, sha256: '', chunks: 0 };
  const consume = async (body: Readable): Promise<void> => {
    const hash = createHash('sha256');
    await new Promise<void>((done, fail) => {
      body.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        seen.bytes += chunk.byteLength;
        seen.chunks += 1;
      });
      body.once('end', done).once('error', fail);
    });
    seen.sha256 = hash.digest('hex');
  };
  return { seen, consume };
}

/** One attempt whose outcome decide hands back as it is. */
function once(overrides: Partial<ExchangeOptions<ExchangeOutcome>>): Promise<ExchangeOutcome> {
  return send<ExchangeOutcome>({
    dispatcher: agent,
    request: () => ({ url: new URL(`${ORIGIN}/r/1.wav`), method: 'GET', headers: {} }),
    decide: (outcome) => ({ action: 'accept', value: outcome }),
    timeoutMs: 5_000,
    maxBodyBytes: 64,
    ...overrides,
  });
}

describe('send: a body streamed instead of read into memory', () => {
  it('hands the whole body to the consumer, past maxBodyBytes, and keeps none of it', async () => {
    const audio = Buffer.alloc(300_000, 7);
    recording().reply(200, audio, { headers: { 'content-type': 'audio/wav', 'content-length': String(audio.byteLength) } });
    const { seen, consume } = hashing();
    const outcome = await once({ streamBody: (head) => (head.status === 200 ? { maxBytes: 1_000_000, consume } : undefined) });
    expect(outcome).toMatchObject({ response: { status: 200, streamed: true } });
    expect('response' in outcome && outcome.response.body.byteLength).toBe(0);
    expect(seen).toMatchObject({ bytes: audio.byteLength, sha256: createHash('sha256').update(audio).digest('hex') });
  });

  it('reads the body as usual when the head is not one to stream (an error page)', async () => {
    recording().reply(404, 'gone');
    const outcome = await once({
      streamBody: (head) => (head.status === 200 ? { maxBytes: 1_000, consume: () => Promise.reject(new Error('not called')) } : undefined),
    });
    expect('response' in outcome && outcome.response.body.toString()).toBe('gone');
  });

  it('refuses a declared length over maxBytes before reading a byte', async () => {
    recording().reply(200, Buffer.alloc(2_000), { headers: { 'content-length': '2000' } });
    const { seen, consume } = hashing();
    const outcome = await once({ streamBody: () => ({ maxBytes: 1_000, consume }) });
    expect('error' in outcome && outcome.error).toBeInstanceOf(BodyTooLargeError);
    expect('head' in outcome && outcome.head?.status).toBe(200);
    expect(seen.bytes).toBe(0);
  });

  it('stops a body that passes maxBytes while it streams, with no length declared', async () => {
    recording().reply(200, () => Buffer.alloc(5_000, 1));
    const { seen, consume } = hashing();
    const outcome = await once({ streamBody: () => ({ maxBytes: 1_000, consume }) });
    expect('error' in outcome && outcome.error).toBeInstanceOf(BodyTooLargeError);
    expect(seen.bytes).toBeLessThanOrEqual(1_000);
  });

  it('fails a body shorter than its declared length', async () => {
    recording().reply(200, Buffer.alloc(100), { headers: { 'content-length': '150' } });
    const { consume } = hashing();
    const outcome = await once({ streamBody: () => ({ maxBytes: 1_000, consume }) });
    expect('error' in outcome && outcome.error).toBeInstanceOf(BodyLengthError);
    expect('error' in outcome && (outcome.error as BodyLengthError).message).toBe('body of 100 bytes where content-length declared 150');
  });

  it('passes on what the consumer throws (a store that failed), with the head', async () => {
    recording().reply(200, Buffer.alloc(10), { headers: { 'content-type': 'audio/wav' } });
    const refused = new Error('disk full');
    const outcome = await once({ streamBody: () => ({ maxBytes: 1_000, consume: () => Promise.reject(refused) }) });
    expect(outcome).toMatchObject({ error: refused, head: { status: 200 } });
  });
});
