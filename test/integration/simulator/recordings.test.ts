import { createHash } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../simulator/index.js';
import { recordingDigest, recordingIdOf, recordingSize, startSimulator } from '../../../simulator/index.js';
import { agent } from './http.js';

interface Download {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

async function download(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET'): Promise<Download> {
  const res = await request(url, { method, headers, dispatcher: agent });
  return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The simulator's clock, stepped by the tests: history ends 2025-06-01. */
let nowMs = Date.UTC(2025, 5, 1);
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ businesses: 2, calls: 40, voicemails: 6, rateLimit: false, clock: () => nowMs });
});

afterAll(async () => {
  await sim.close();
});

function links(business: string): string[] {
  const truth = sim.truth(business);
  return [
    ...truth.calls.map((c) => c.expected.recording_url).filter((url): url is string => url !== null),
    ...truth.voicemails.flatMap((v) => [String(v.expected.recording_url), String(v.expected.api_recording_url)]),
  ];
}

describe('the recordings host', () => {
  it('serves every link the records hand out: WAV bytes whose SHA-256 anyone can compute from the recording id', async () => {
    expect(sim.recordingsBaseUrl).toBe(`${sim.baseUrl}/media`);
    const all = [...links('biz-1'), ...links('biz-2')];
    expect(all.length).toBeGreaterThan(40);
    for (const url of all) {
      const res = await download(url);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('audio/wav');
      expect(res.headers['accept-ranges']).toBe('bytes');
      expect(res.headers['content-length']).toBe(String(res.body.length));
      expect(res.body.toString('ascii', 0, 4) + res.body.toString('ascii', 8, 12)).toBe('RIFFWAVE');
      const id = recordingIdOf(url);
      expect(res.body.length).toBe(recordingSize(id, { min: 4096, max: 65_536 }));
      expect({ bytes: res.body.length, sha256: sha256(res.body) }).toEqual(recordingDigest(id, res.body.length));
      expect(sim.recording(url)).toMatchObject({ status: 200, bytes: res.body.length, sha256: sha256(res.body) });
    }
  });

  it('answers ranges with 206 and the exact slice, a range past the end with 416, HEAD with the headers alone', async () => {
    const url = links('biz-1')[0]!;
    const whole = (await download(url)).body;
    const part = await download(url, { range: 'bytes=100-4195' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-4195/${whole.length}`);
    expect(part.body.equals(whole.subarray(100, 4196))).toBe(true);
    const tail = await download(url, { range: 'bytes=-10' });
    expect(tail.body.equals(whole.subarray(whole.length - 10))).toBe(true);
    const resumed = await download(url, { range: `bytes=${whole.length - 1}-`, 'if-range': String(part.headers.etag) });
    expect(resumed.body.equals(whole.subarray(whole.length - 1))).toBe(true);
    // A validator that no longer matches: the whole body, as RFC 9110 says.
    const changed = await download(url, { range: 'bytes=0-9', 'if-range': '"other"' });
    expect([changed.status, changed.body.length]).toEqual([200, whole.length]);
    const beyond = await download(url, { range: `bytes=${whole.length}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${whole.length}`);
    const head = await download(url, {}, 'HEAD');
    expect([head.status, head.headers['content-length'], head.body.length]).toEqual([200, String(whole.length), 0]);
  });

  it('expires links older than linkTtlMs with a 403 AccessDenied in XML, counted; younger links still play', async () => {
    const calls = sim.truth('biz-2').calls.filter((c) => c.expected.recording_url !== null);
    const cutoff = Date.parse(String(calls[calls.length >> 1]!.expected.created_at));
    sim.setRecordings({ linkTtlMs: nowMs - cutoff });
    sim.resetCounters();
    try {
      let expired = 0;
      for (const call of calls) {
        const url = String(call.expected.recording_url);
        const res = await download(url);
        const old = nowMs - Date.parse(String(call.expected.created_at)) > nowMs - cutoff;
        expect(res.status).toBe(old ? 403 : 200);
        expect(sim.recording(url)?.status).toBe(old ? 403 : 200);
        if (old) {
          expired++;
          expect(res.headers['content-type']).toBe('application/xml');
          expect(res.body.toString()).toMatch(/<Error><Code>AccessDenied<\/Code><Message>Request has expired<\/Message><Expires>[^<]+Z<\/Expires>/);
        }
      }
      expect(expired).toBeGreaterThan(0);
      expect(expired).toBeLessThan(calls.length);
      expect(sim.counters().recordings).toMatchObject({ requests: calls.length, expired, byStatus: { '200': calls.length - expired, '403': expired } });
      // Time moves on: a link that played expires.
      nowMs += Date.UTC(2026, 0, 1) - Date.UTC(2025, 5, 1);
      expect((await download(String(calls.at(-1)!.expected.recording_url))).status).toBe(403);
    } finally {
      sim.setRecordings({ linkTtlMs: 0 });
      nowMs = Date.UTC(2025, 5, 1);
    }
  });

  it('answers 404 NoSuchKey once a recording is deleted, with its record or alone, and for links it never gave', async () => {
    const truth = sim.truth('biz-1');
    const [withRecord, alone] = truth.calls.filter((c) => c.expected.recording_url !== null);
    const voicemail = truth.voicemails[0]!;
    sim.deleteCalls('biz-1', [withRecord!.id]);
    sim.deleteVoicemails('biz-1', [voicemail.id]);
    sim.deleteRecordings([String(alone!.expected.recording_url)]);
    for (const url of [
      withRecord!.expected.recording_url,
      alone!.expected.recording_url,
      voicemail.expected.recording_url,
      voicemail.expected.api_recording_url,
    ]) {
      const res = await download(String(url));
      expect(res.status).toBe(404);
      expect(res.body.toString()).toContain('<Code>NoSuchKey</Code>');
      expect(sim.recording(String(url))?.status).toBe(404);
    }
    expect(sim.truth('biz-1').calls.map((c) => c.id)).toContain(alone!.id);
    const wrongFolder = String(alone!.expected.recording_url).replace('/recordings/', '/recordings/x');
    expect((await download(wrongFolder)).status).toBe(404);
    expect((await download(`${sim.recordingsBaseUrl}/nobody/recordings/x/y.wav`)).status).toBe(404);
    expect(sim.recording('no-such-recording')).toBeUndefined();
    expect(() => sim.deleteRecordings(['no-such-recording'])).toThrow(/no recording no-such-recording/);
  });

  it('names the recordings port when it is taken', async () => {
    const port = Number(new URL(sim.recordingsHostUrl).port);
    await expect(startSimulator({ businesses: 1, calls: 1, recordingsPort: port })).rejects.toThrow(
      `simulator: the recordings port ${port} on 127.0.0.1 is taken; choose another with recordingsPort (--recordings-port)`,
    );
  });
});
