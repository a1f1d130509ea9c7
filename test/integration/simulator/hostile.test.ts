import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { Hostile, Simulator } from '../../../simulator/index.js';
import { startSimulator } from '../../../simulator/index.js';
import type { Response } from './http.js';
import { agent, call } from './http.js';

const YEAR_3000 = 32_503_680_000;

describe('simulator hostile bounds', () => {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  async function start(hostile: Partial<Hostile>, rateLimit: false | { limit: number; windowMs: number } = false): Promise<Simulator> {
    sim = await startSimulator({ businesses: 1, calls: 120, voicemails: 30, rateLimit, hostile });
    return sim;
  }
  const v1 = (s: Simulator, path = '/calls?limit=5'): Promise<Response> => call(`${s.baseUrl}/api/v1${path}`, { token: s.businesses[0]!.apiKey });

  it('retryAfter429: a 429 says Retry-After 999999999 (header and retry_after); an HTTP date is sent verbatim', async () => {
    const s = await start({ retryAfter429: '999999999' }, { limit: 1, windowMs: 60_000 });
    expect((await v1(s)).status).toBe(200);
    const refused = await call<{ retry_after: number }>(`${s.baseUrl}/api/v1/calls`, { token: s.businesses[0]!.apiKey });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('999999999');
    expect(refused.body.retry_after).toBe(999_999_999);
    const date = 'Fri, 01 Jan 3000 00:00:00 GMT';
    s.setHostile({ retryAfter429: date });
    const dated = await call<{ retry_after: number }>(`${s.v2BaseUrl}/api/all/calls`, { token: s.businesses[0]!.v2Token });
    expect(dated.headers['retry-after']).toBe(date);
    expect(dated.body.retry_after).toBeGreaterThanOrEqual(1);
    expect(dated.body.retry_after).toBeLessThanOrEqual(60);
  });

  it('exhaustedUntilSec: 200s that say Remaining 0 and a reset in the year 3000, on v1 and v2, even with the limit off', async () => {
    const s = await start({ exhaustedUntilSec: YEAR_3000 });
    for (const res of [await v1(s), await call(`${s.v2BaseUrl}/api/all/voicemails`, { token: s.businesses[0]!.v2Token })]) {
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      expect(res.headers['x-ratelimit-reset']).toBe(String(YEAR_3000));
      expect(res.headers['x-ratelimit-limit']).toBe('60');
    }
    s.setHostile({ exhaustedUntilSec: 0 });
    expect((await v1(s)).headers['x-ratelimit-remaining']).toBeUndefined();
  });

  it('hugeBodyBytes: a valid JSON list body of exactly N bytes, chunked, streamed without the simulator holding it', async () => {
    const bytes = 300 * 1024 * 1024 + 3;
    const s = await start({ hugeBodyBytes: bytes });
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const res = await request(`${s.baseUrl}/api/v1/calls`, { headers: { authorization: `Bearer ${s.businesses[0]!.apiKey}` }, dispatcher: agent });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBeUndefined();
    let received = 0;
    let head = '';
    let tail = '';
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      if (head.length < 40) head += buf.subarray(0, 40).toString();
      tail = (tail + buf.subarray(-60).toString()).slice(-60);
      received += buf.length;
      if (received % (16 * 1024 * 1024) < buf.length) peak = Math.max(peak, process.memoryUsage().rss);
    }
    expect(received).toBe(bytes);
    expect(head.startsWith('{"data":{"calls":[')).toBe(true);
    expect(JSON.parse(head.slice(0, 18) + tail.trimStart())).toEqual({ data: { calls: [], total: 0, has_more: false } });
    // Holding the body (string and buffer) would cost several hundred MB.
    expect(peak - rssBefore).toBeLessThan(150 * 1024 * 1024);
    expect(s.counters().faults.hugeBodies).toBe(1);
  });

  it('hugeBodyBytes: declared length on v2, and a client that hangs up stops the stream', async () => {
    const gib = 1024 * 1024 * 1024;
    const s = await start({ hugeBodyBytes: gib, hugeBodyDeclared: true });
    const res = await request(`${s.v2BaseUrl}/api/all/voicemails`, { headers: { authorization: `Bearer ${s.businesses[0]!.v2Token}` }, dispatcher: agent });
    expect(res.headers['content-length']).toBe(String(gib));
    const first = await new Promise<Buffer>((resolve) => res.body.once('data', resolve));
    expect(first.toString().startsWith('{"voicemail":[')).toBe(true);
    res.body.destroy();
    // Wait until the stream stops growing (bounded), then check it stopped far short of the GiB.
    let written = -1;
    for (let i = 0; i < 50 && written !== s.counters().faults.hugeBodyBytesWritten; i++) {
      written = s.counters().faults.hugeBodyBytesWritten;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(256 * 1024 * 1024);
    s.setHostile({ hugeBodyBytes: 0 });
    expect((await v1(s)).status).toBe(200);
  });

  it('trickleMs: headers at once, then the body one byte per interval', async () => {
    const s = await start({ trickleMs: 3 });
    const started = Date.now();
    const res = await request(`${s.baseUrl}/api/v1/calls?limit=1`, { headers: { authorization: `Bearer ${s.businesses[0]!.apiKey}` }, dispatcher: agent });
    const length = Number(res.headers['content-length']);
    expect(length).toBeGreaterThan(200);
    let chunks = 0;
    let text = '';
    for await (const chunk of res.body) {
      chunks++;
      text += (chunk as Buffer).toString();
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual((length - 1) * 3);
    expect(chunks).toBeGreaterThan(length / 4);
    expect((JSON.parse(text) as { data: { calls: unknown[] } }).data.calls).toHaveLength(1);
    expect(s.counters().faults.trickled).toBe(1);
  });

  it('echoCredentials: the error message holds the Authorization header and the bare key at the chosen character', async () => {
    const s = await start({ echoCredentials: { status: 502, at: 5000, length: 20_000 } });
    const key = s.businesses[0]!.apiKey;
    const res = await call<{ error: { code: string; message: string } }>(`${s.baseUrl}/api/v1/calls`, { token: key });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('502');
    expect(res.body.error.message).toHaveLength(20_000);
    expect(res.body.error.message.indexOf(`Authorization: Bearer ${key}`)).toBe(5000);
    expect(res.body.error.message.split(key)).toHaveLength(3);
    const v2 = await call<{ error: { message: string } }>(`${s.v2BaseUrl}/api/all/calls`, { token: s.businesses[0]!.v2Token });
    expect(v2.body.error.message).toContain(s.businesses[0]!.v2Token);
    expect(s.counters().faults.echoedCredentials).toBe(2);
  });

  it('unavailable: the next N requests get 503 with Retry-After (seconds or a date), then service resumes', async () => {
    const s = await start({ unavailable: { requests: 2, retryAfter: '7' } });
    const a = await v1(s);
    const b = await call(`${s.v2BaseUrl}/api/all/calls`, { token: s.businesses[0]!.v2Token });
    expect([a.status, b.status]).toEqual([503, 503]);
    expect(a.headers['retry-after']).toBe('7');
    expect((await v1(s)).status).toBe(200);
    s.setHostile({ unavailable: { requests: 1, retryAfter: 'Wed, 21 Oct 2037 07:28:00 GMT' } });
    expect((await v1(s)).headers['retry-after']).toBe('Wed, 21 Oct 2037 07:28:00 GMT');
    expect(s.counters().faults.unavailable).toBe(3);
  });
});
