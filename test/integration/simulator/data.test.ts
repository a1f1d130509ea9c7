import { isValidPhoneNumber } from 'libphonenumber-js';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../../simulator/index.js';
import { call } from './http.js';

describe('simulator data', () => {
  it('is deterministic: the same seed gives the same truth and keys, another seed does not', async () => {
    // Recording links name the server that serves them (its port); fixed hosts keep them out of the comparison.
    const hosts = { recordingsBaseUrl: 'https://media.calltrack.test', providerBaseUrl: 'https://api.telephony.example' };
    const [a, b, c] = await Promise.all([
      startSimulator({ seed: 7, businesses: 2, calls: 300, voicemails: 40, ...hosts }),
      startSimulator({ seed: 7, businesses: 2, calls: 300, voicemails: 40, ...hosts }),
      startSimulator({ seed: 8, businesses: 2, calls: 300, voicemails: 40, ...hosts }),
    ]);
    try {
      expect(b.truth('biz-2')).toEqual(a.truth('biz-2'));
      expect(b.businesses).toEqual(a.businesses);
      expect(c.truth('biz-2').calls[0]!.id).not.toBe(a.truth('biz-2').calls[0]!.id);
      expect(c.businesses[0]!.apiKey).not.toBe(a.businesses[0]!.apiKey);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it('generates valid US E.164 numbers, both directions, recordings, empty transcriptions and a 90-day spread', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 2000, voicemails: 200 });
    try {
      const truth = sim.truth('biz-1');
      for (const c of truth.calls) {
        expect(isValidPhoneNumber(String(c.expected.to_number))).toBe(true);
        expect(isValidPhoneNumber(String(c.expected.from_number))).toBe(true);
        expect(c.expected.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      }
      for (const n of truth.numbers) expect(isValidPhoneNumber(String(n.expected.number))).toBe(true);
      const directions = new Set(truth.calls.map((c) => c.expected.direction));
      expect(directions).toEqual(new Set(['inbound', 'outbound']));
      expect(truth.calls.some((c) => c.expected.recording_url === null)).toBe(true);
      expect(truth.calls.some((c) => String(c.expected.recording_url).startsWith(`${sim.recordingsBaseUrl}/`))).toBe(true);
      expect(truth.calls.some((c) => c.expected.transcription_text === null && c.expected.recording_url !== null)).toBe(true);
      const first = Date.parse(String(truth.calls[0]!.expected.created_at));
      const last = Date.parse(String(truth.calls.at(-1)!.expected.created_at));
      expect((last - first) / 86_400_000).toBeGreaterThan(85);
      expect(new Set(truth.calls.map((c) => c.id)).size).toBe(2000);
    } finally {
      await sim.close();
    }
  });

  it('a late transcription keeps the id, changes the text and bumps updated_at', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 50, rateLimit: false });
    try {
      const target = sim.truth('biz-1').calls[10]!;
      sim.updateCallTranscription('biz-1', target.id, 'Late text.');
      const res = await call<{ data: { calls: { id: string; transcription_text: string; updated_at: string }[] } }>(
        `${sim.baseUrl}/api/v1/calls?limit=1&offset=10`,
        { token: sim.businesses[0]!.apiKey },
      );
      const served = res.body.data.calls[0]!;
      expect(served.id).toBe(target.id);
      expect(served.transcription_text).toBe('Late text.');
      expect(Date.parse(served.updated_at)).toBeGreaterThan(Date.parse((target.raw as { updated_at: string }).updated_at));
      expect(sim.truth('biz-1').calls[10]!.expected.transcription_text).toBe('Late text.');
      expect(() => sim.updateCallTranscription('biz-1', 'nope', 'x')).toThrow();
    } finally {
      await sim.close();
    }
  });

  it('serves a million calls in one business: the last page by offset, and the same newest call on v2', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 1_000_000, rateLimit: false });
    try {
      const token = sim.businesses[0]!.apiKey;
      const res = await call<{ data: { calls: { id: string }[]; total: number; has_more: boolean } }>(`${sim.baseUrl}/api/v1/calls?limit=500&offset=999500`, {
        token,
      });
      expect(res.body.data.total).toBe(1_000_000);
      expect(res.body.data.calls).toHaveLength(500);
      expect(res.body.data.has_more).toBe(false);
      const ids = res.body.data.calls.map((c) => c.id);
      expect([...ids].sort()).toEqual(ids);
      const last = res.body.data.calls.at(-1) as unknown as { created_at: string; to_number: string; direction: string };
      const v2 = await call<{ calls: Record<string, unknown>[] }>(`${sim.v2BaseUrl}/api/all/calls?limit=1`, { token: sim.businesses[0]!.v2Token });
      expect(`${String(v2.body.calls[0]!.call_created_at).replace(' ', 'T')}Z`).toBe(last.created_at);
      expect(v2.body.calls[0]!.call_to_number).toBe(last.to_number);
      expect(v2.body.calls[0]!.call_direction).toBe(last.direction);
      sim.addCalls('biz-1', 1);
      const newest = await call<{ calls: { uuid: number }[] }>(`${sim.v2BaseUrl}/api/all/calls?limit=1`, { token: sim.businesses[0]!.v2Token });
      expect(newest.body.calls[0]!.uuid).toBe(Number(v2.body.calls[0]!.uuid) + 1);
    } finally {
      await sim.close();
    }
  });
});
