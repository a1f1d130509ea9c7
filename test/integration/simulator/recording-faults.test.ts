import { createHash } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../simulator/index.js';
import { recordingDigest, startSimulator } from '../../../simulator/index.js';
import { agent, call } from './http.js';

interface Partial {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes received before the body ended, failed or was abandoned. */
  body: Buffer;
  /** Why the body stopped early, if it did. */
  error?: string;
}

/** Reads a body up to `limit` bytes, then hangs up (a client enforcing a size limit); never follows redirects. */
async function fetchUpTo(url: string, limit = Number.POSITIVE_INFINITY, headers: Record<string, string> = {}): Promise<Partial> {
  const res = await request(url, { headers, dispatcher: agent });
  const chunks: Buffer[] = [];
  let received = 0;
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      received += chunk.length;
      if (received >= limit) {
        res.body.destroy();
        break;
      }
    }
  } catch (error) {
    return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), error: (error as Error).message };
  }
  return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) };
}

const nowMs = Date.UTC(2025, 5, 1);
let sim: Simulator;
let link: string;
let callId: string;

beforeAll(async () => {
  sim = await startSimulator({
    businesses: 1,
    calls: 20,
    voicemails: 2,
    rateLimit: { limit: 3, windowMs: 60_000 },
    clock: () => nowMs,
    recordings: { size: 20_000 },
  });
  const call = sim.truth('biz-1').calls.find((c) => c.expected.recording_url !== null)!;
  link = String(call.expected.recording_url);
  callId = call.id;
});

afterAll(async () => {
  await sim.close();
});

beforeEach(() => {
  sim.setRecordings({ faults: [], rateLimit: false, providerRedirect: false });
  sim.resetCounters();
});

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

describe('recordings host faults', () => {
  it('answers 503 with Retry-After on the attempts named, then serves the recording', async () => {
    sim.setRecordings({ faults: [{ fault: { kind: 'status', status: 503, retryAfter: '2' }, records: [callId], attempts: [1, 2] }] });
    for (const attempt of [1, 2]) {
      const res = await fetchUpTo(link);
      expect([attempt, res.status, res.headers['retry-after']]).toEqual([attempt, 503, '2']);
      expect(res.body.toString()).toContain('<Code>ServiceUnavailable</Code>');
    }
    const third = await fetchUpTo(link);
    expect(third.status).toBe(200);
    expect(sha256(third.body)).toBe(sim.recording(link)!.sha256);
    // Another recording is not named: it plays at once.
    const other = String(sim.truth('biz-1').voicemails[0]!.expected.recording_url);
    expect((await fetchUpTo(other)).status).toBe(200);
    expect(sim.counters().recordings).toMatchObject({ requests: 4, faults: 2, byStatus: { '200': 2, '503': 2 } });
  });

  it('breaks a download after N bytes, and a range request resumes it to the exact bytes', async () => {
    sim.setRecordings({ faults: [{ fault: { kind: 'reset', afterBytes: 5000 }, attempts: [1] }] });
    const broken = await fetchUpTo(link);
    expect(broken.status).toBe(200);
    expect(broken.headers['content-length']).toBe('20000');
    expect(broken.error).toBeDefined();
    expect(broken.body.length).toBe(5000);
    const rest = await fetchUpTo(link, Number.POSITIVE_INFINITY, { range: `bytes=${broken.body.length}-` });
    expect([rest.status, rest.headers['content-range']]).toEqual([206, 'bytes 5000-19999/20000']);
    expect(sha256(Buffer.concat([broken.body, rest.body]))).toBe(recordingDigest(sim.recording(link)!.recordingId, 20_000).sha256);
  });

  it('sends headers and no body before closing when N is 0', async () => {
    sim.setRecordings({ faults: [{ fault: { kind: 'reset', afterBytes: 0 } }] });
    const broken = await fetchUpTo(link);
    expect([broken.status, broken.body.length, broken.error === undefined]).toEqual([200, 0, false]);
  });

  it('serves a slow download whole, paced at bytesPerSecond', async () => {
    sim.setRecordings({ faults: [{ fault: { kind: 'slow', bytesPerSecond: 200_000 } }] });
    const slow = await fetchUpTo(link);
    expect(sha256(slow.body)).toBe(sim.recording(link)!.sha256);
    expect(sim.counters().recordings.faults).toBe(1);
  });

  it('declares a 2 GB recording and generates it as it streams: a client that stops at its limit costs the simulator little', async () => {
    sim.setRecordings({ faults: [{ fault: { kind: 'oversized', declaredBytes: 2 * 1024 ** 3 } }] });
    const big = await fetchUpTo(link, 1024 * 1024);
    expect(big.headers['content-length']).toBe(String(2 * 1024 ** 3));
    expect(big.body.readUInt32LE(40)).toBe(2 * 1024 ** 3 - 44);
    expect(big.body.length).toBeGreaterThanOrEqual(1024 * 1024);
    await expect.poll(() => sim.counters().recordings.bytesServed).toBeLessThan(64 * 1024 * 1024);
    // Still answering.
    sim.setRecordings({ faults: [] });
    expect((await fetchUpTo(link)).body.length).toBe(20_000);
  });

  it('sends an endless body without Content-Length', async () => {
    sim.setRecordings({ faults: [{ fault: { kind: 'endless' } }] });
    const endless = await fetchUpTo(link, 3 * 1024 * 1024);
    expect(endless.headers['content-length']).toBeUndefined();
    expect(endless.headers['transfer-encoding']).toBe('chunked');
    expect(endless.body.length).toBeGreaterThanOrEqual(3 * 1024 * 1024);
    expect(endless.body.subarray(0, 20_000).equals((await fetchAfterClear()).body)).toBe(true);
  });

  it('answers a 200 with an HTML error page instead of audio', async () => {
    sim.setRecordings({ faults: [{ fault: { kind: 'html' } }] });
    const html = await fetchUpTo(link);
    expect([html.status, html.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    expect(html.body.toString()).toMatch(/^<!DOCTYPE html>/);
  });

  it('redirects to a foreign host, and counts the requests that followed it there and those that carried a credential', async () => {
    sim.setRecordings({ faults: [{ fault: { kind: 'redirect', to: 'foreign' }, attempts: [1] }] });
    const moved = await fetchUpTo(link);
    const location = String(moved.headers.location);
    expect(moved.status).toBe(302);
    expect(location.startsWith(`${sim.foreignHostUrl}/media/`)).toBe(true);
    expect(new URL(location).hostname).not.toBe(new URL(link).hostname);
    expect(sim.counters().recordings.foreignRequests).toBe(0);
    const followed = await fetchUpTo(location, Number.POSITIVE_INFINITY, { authorization: 'Bearer leaked' });
    expect(followed.status).toBe(200);
    expect(sim.counters().recordings).toMatchObject({ foreignRequests: 1, withCredentials: 1 });
  });

  it('redirects provider links to the media link when providerRedirect is on', async () => {
    const voicemail = sim.truth('biz-1').voicemails[0]!;
    sim.setRecordings({ providerRedirect: true });
    const moved = await fetchUpTo(String(voicemail.expected.api_recording_url));
    expect([moved.status, moved.headers.location]).toEqual([302, voicemail.expected.recording_url]);
    sim.setRecordings({ faults: [{ fault: { kind: 'redirect', to: 'own-port' } }] });
    const ownPort = await fetchUpTo(link);
    expect(String(ownPort.headers.location).startsWith(`${sim.recordingsHostUrl}/media/`)).toBe(true);
  });

  it('keeps a budget of its own per business: 429 with Retry-After past it', async () => {
    sim.setRecordings({ rateLimit: { limit: 2, windowMs: 60_000 } });
    expect((await fetchUpTo(link)).status).toBe(200);
    expect((await fetchUpTo(link)).status).toBe(200);
    const refused = await fetchUpTo(link);
    expect([refused.status, refused.headers['retry-after']]).toEqual([429, String(Math.ceil((60_000 - (nowMs % 60_000)) / 1000))]);
    expect(refused.body.toString()).toContain('<Code>SlowDown</Code>');
    // The API's own bucket is untouched.
    const api = await call(`${sim.baseUrl}/api/v1/calls`, { token: sim.businesses[0]!.apiKey });
    expect(api.status).toBe(200);
  });

  it("or takes from the API's bucket ('api'), so downloads and API requests share the 60/minute", async () => {
    sim.setRateLimit({ limit: 3, windowMs: 60_000 });
    sim.setRecordings({ rateLimit: 'api' });
    expect((await fetchUpTo(link)).status).toBe(200);
    expect((await call(`${sim.baseUrl}/api/v1/calls`, { token: sim.businesses[0]!.apiKey })).status).toBe(200);
    expect((await fetchUpTo(link)).status).toBe(200);
    expect((await fetchUpTo(link)).status).toBe(429);
    expect((await call(`${sim.baseUrl}/api/v1/calls`, { token: sim.businesses[0]!.apiKey })).status).toBe(429);
    expect(sim.counters().businesses['biz-1']).toMatchObject({ rateLimited: 2 });
  });
});

async function fetchAfterClear(): Promise<Partial> {
  sim.setRecordings({ faults: [] });
  return fetchUpTo(link);
}
