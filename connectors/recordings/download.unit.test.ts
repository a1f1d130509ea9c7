import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent, type Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FolderStore } from '../object-storage/folder.js';
import type { ObjectStore } from '../object-storage/index.js';
import { archiveRecording, type DownloadOptions } from './download.js';
import { ArchiveStoreError } from './errors.js';
import type { RecordingRef } from './keys.js';

const HOST = 'https://recordings.example';
const API_KEY = 'Bearer ctk_live_secret_key';
const ref: RecordingRef = { businessId: 'acme', stream: 'calls', id: 'c-1', url: `${HOST}/u/recordings/7/RE1.wav?sig=abc`, createdAt: '2026-03-04T05:06:07Z' };
const KEY = 'acme/calls/2026/03/c-1.wav';
const PATH = '/u/recordings/7/RE1.wav?sig=abc';

let agent: MockAgent;
let dir: string;
let store: FolderStore;
let waits: number[];
let asked: string[];

beforeEach(async () => {
  agent = new MockAgent();
  // A request nobody set up fails: a host not allowed is never reached, and a count of attempts cannot pass by reaching out.
  agent.disableNetConnect();
  dir = await mkdtemp(join(tmpdir(), 'callsync-recordings-'));
  store = await FolderStore.open({ type: 'folder', path: dir });
  waits = [];
  asked = [];
});

afterEach(async () => {
  await agent.close();
  await rm(dir, { recursive: true, force: true });
});

function wav(size: number, seed = 3): Buffer {
  const bytes = Buffer.alloc(size);
  for (let index = 0; index < size; index += 1) bytes[index] = (index * seed) & 0xff;
  return bytes;
}

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

function archive(overrides: Partial<DownloadOptions> = {}) {
  return archiveRecording(ref, {
    dispatcher: agent,
    store,
    maxBytes: 1_000_000,
    allowHosts: ['cdn.example'],
    timeoutMs: 5_000,
    retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000 },
    maxWaitMs: 60_000,
    credentials: { origin: HOST, headers: { authorization: API_KEY } },
    acquire: (url) => {
      asked.push(url.host);
      return Promise.resolve();
    },
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    ...overrides,
  });
}

/** What a reader of the archive sees: every key but the staging folder's, and what staging holds. */
async function archived(): Promise<{ keys: string[]; staging: string[] }> {
  const keys: string[] = [];
  for await (const object of store.list('')) keys.push(object.key);
  return { keys, staging: await readdir(store.stagingDirectory) };
}

/** A dispatcher whose answers send their headers and then data without end, until the request is aborted. */
function endless(mock: MockAgent): Dispatcher {
  return mock.compose((dispatch) => (options, handler) => {
    let stopped = false;
    const wrapped: Dispatcher.DispatchHandler = {
      onConnect: (abort) => handler.onConnect?.((reason?: Error) => ((stopped = true), abort(reason))),
      onHeaders: (status, headers, resume, text) => handler.onHeaders?.(status, headers, resume, text) ?? true,
      onData: () => true,
      onError: (error) => ((stopped = true), handler.onError?.(error)),
      onComplete: () => {
        const step = (): void => {
          if (stopped) return;
          handler.onData?.(Buffer.alloc(64 * 1024, 1));
          setImmediate(step);
        };
        step();
      },
    };
    return dispatch(options, wrapped);
  });
}

const recording = (host = HOST, path = PATH) => agent.get(host).intercept({ path, method: 'GET' });

describe('archiveRecording', () => {
  it('streams the recording under its key with its SHA-256 beside it, sending the API key to its own host', async () => {
    const audio = wav(300_000);
    agent
      .get(HOST)
      .intercept({ path: PATH, method: 'GET', headers: { authorization: API_KEY } })
      .reply(200, audio, { headers: { 'content-type': 'audio/wav', 'content-length': String(audio.byteLength) } });
    expect(await archive()).toEqual({ state: 'archived', key: KEY, sha256: sha(audio), bytes: audio.byteLength, contentType: 'audio/wav' });
    expect(await readFile(store.pathOf(KEY))).toEqual(audio);
    expect(await readFile(store.pathOf(`${KEY}.sha256`), 'utf8')).toBe(`${sha(audio)}  c-1.wav\n`);
    expect(await archived()).toEqual({ keys: [KEY, `${KEY}.sha256`], staging: [] });
  });

  it('retries a 503 after its Retry-After and a reset connection after backoff, through the one policy', async () => {
    const audio = wav(1_000);
    recording().reply(503, 'busy', { headers: { 'retry-after': '7' } });
    recording().replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    recording().reply(200, audio, { headers: { 'content-type': 'audio/x-wav' } });
    expect(await archive()).toMatchObject({ state: 'archived', sha256: sha(audio) });
    expect(waits[0]).toBeGreaterThanOrEqual(7_000);
    expect(waits).toHaveLength(2);
    expect(asked).toEqual(['recordings.example', 'recordings.example', 'recordings.example']);
  });

  it('retries a body that ends short of its content-length, keeping nothing of it', async () => {
    const audio = wav(2_000);
    recording().reply(200, audio.subarray(0, 1_500), { headers: { 'content-type': 'audio/wav', 'content-length': '2000' } });
    recording().reply(200, audio, { headers: { 'content-type': 'audio/wav', 'content-length': '2000' } });
    expect(await archive()).toMatchObject({ state: 'archived', bytes: 2_000, sha256: sha(audio) });
  });

  it.each([
    [403, /^HTTP 403: the link was refused/],
    [404, /^HTTP 404: no recording at the link/],
    [410, /^HTTP 410/],
  ])('marks a %i expired, asking once', async (status, reason) => {
    recording().reply(status, 'Request has expired');
    const outcome = await archive();
    expect(outcome.state).toBe('expired');
    expect('reason' in outcome && outcome.reason).toMatch(reason);
    expect(asked).toHaveLength(1);
    expect(await archived()).toEqual({ keys: [], staging: [] });
  });

  it('gives up on a lasting 5xx after maxAttempts, with the reason', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) recording().reply(502, 'bad gateway');
    expect(await archive()).toEqual({ state: 'failed', reason: 'HTTP 502 (after 3 attempts)' });
  });

  it('fails a 200 that is an HTML page, storing nothing', async () => {
    recording().reply(200, '<html><body>Session expired, please log in</body></html>', { headers: { 'content-type': 'text/html; charset=utf-8' } });
    expect(await archive()).toEqual({ state: 'failed', reason: 'answered 200 with text/html; charset=utf-8, not audio' });
    expect(await archived()).toEqual({ keys: [], staging: [] });
  });

  it('fails a recording whose declared length is over maxBytes without reading it', async () => {
    recording().reply(200, wav(5_000), { headers: { 'content-type': 'audio/wav', 'content-length': '5000' } });
    expect(await archive({ maxBytes: 4_096 })).toEqual({ state: 'failed', reason: 'larger than recordings.maxBytes (5000 bytes > 4096 bytes); nothing kept' });
    expect(await archived()).toEqual({ keys: [], staging: [] });
  });

  it('stops an endless body at maxBytes while it streams: failed, nothing under the key, nothing left in staging', async () => {
    recording().reply(200, '', { headers: { 'content-type': 'audio/wav' } });
    expect(await archive({ dispatcher: endless(agent), maxBytes: 1_000_000 })).toEqual({
      state: 'failed',
      reason: 'larger than recordings.maxBytes (more > 1000000 bytes); nothing kept',
    });
    expect(await archived()).toEqual({ keys: [], staging: [] });
  });

  it('follows a redirect to an allowed host without the API key, and counts it against the budget', async () => {
    const audio = wav(10_000);
    recording().reply(302, '', { headers: { location: 'https://cdn.example/signed/RE1.wav?token=t' } });
    agent
      .get('https://cdn.example')
      .intercept({
        path: '/signed/RE1.wav?token=t',
        method: 'GET',
        headers: (headers) => !Object.keys(headers).some((name) => name.toLowerCase() === 'authorization'),
      })
      .reply(200, audio, { headers: { 'content-type': 'audio/mpeg' } });
    expect(await archive()).toMatchObject({ state: 'archived', key: KEY, sha256: sha(audio) });
    expect(asked).toEqual(['recordings.example', 'cdn.example']);
  });

  it('refuses a redirect to a host not in allowHosts, asking it nothing', async () => {
    recording().reply(301, '', { headers: { location: 'https://attacker.example/steal' } });
    expect(await archive()).toEqual({ state: 'failed', reason: 'redirected to attacker.example, which is not in recordings.allowHosts' });
    expect(asked).toEqual(['recordings.example']);
  });

  it('never sends the API key to a link on another host', async () => {
    const other = { ...ref, url: 'https://cdn.example/RE2.wav' };
    agent
      .get('https://cdn.example')
      .intercept({ path: '/RE2.wav', method: 'GET', headers: (headers) => !Object.keys(headers).some((name) => name.toLowerCase() === 'authorization') })
      .reply(200, wav(10), { headers: { 'content-type': 'audio/wav' } });
    const outcome = await archiveRecording(other, {
      dispatcher: agent,
      store,
      maxBytes: 100,
      allowHosts: [],
      timeoutMs: 5_000,
      retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
      maxWaitMs: 1_000,
      credentials: { origin: HOST, headers: { authorization: API_KEY } },
    });
    expect(outcome).toMatchObject({ state: 'archived', key: 'acme/calls/2026/03/c-1.wav' });
  });

  it('stops the pass when the storage fails, naming the key', async () => {
    recording().reply(200, wav(100), { headers: { 'content-type': 'audio/wav' } });
    const broken: ObjectStore = {
      ...store,
      put: () => Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })),
    } as unknown as ObjectStore;
    const failure = await archive({ store: broken }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ArchiveStoreError);
    expect((failure as Error).message).toBe('storing the recording acme/calls/2026/03/c-1.wav failed: no space left on device');
  });

  it('fails a link that is not http(s), asking nothing', async () => {
    const options = {
      dispatcher: agent,
      store,
      maxBytes: 1,
      allowHosts: [],
      timeoutMs: 1,
      retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
      maxWaitMs: 1,
    };
    expect(await archiveRecording({ ...ref, url: 'ftp://x/y.wav' }, options)).toEqual({
      state: 'failed',
      reason: 'the recording link is not an http(s) URL',
    });
  });
});
