import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../simulator/index.js';
import { startSimulator } from '../../../simulator/index.js';
import { call } from './http.js';

type V2Voicemail = Record<string, unknown> & { uuid: number };
type V2Call = Record<string, unknown> & { uuid: number };

describe('simulator v2 endpoints', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ businesses: 2, calls: 300, voicemails: 400, rateLimit: false, v2NumbersAsNumbers: 0.3 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('needs the business bearer token: missing or wrong gives 401', async () => {
    expect((await call(`${sim.v2BaseUrl}/api/all/voicemails`)).status).toBe(401);
    expect((await call(`${sim.v2BaseUrl}/api/all/voicemails`, { token: sim.businesses[0]!.apiKey })).status).toBe(401);
  });

  it('lists voicemails newest first, 25 by default, exactly as the truth, with every quirk', async () => {
    const token = sim.businesses[0]!.v2Token;
    const res = await call<{ voicemail: V2Voicemail[] }>(`${sim.v2BaseUrl}/api/all/voicemails`, { token });
    expect(Object.keys(res.body)).toEqual(['voicemail']);
    expect(res.body.voicemail).toHaveLength(25);
    const truth = sim.truth('biz-1').voicemails;
    expect(res.body.voicemail).toEqual(truth.slice(0, 25).map((v) => v.raw));
    const all = (await call<{ voicemail: V2Voicemail[] }>(`${sim.v2BaseUrl}/api/all/voicemails?limit=1000`, { token })).body.voicemail;
    expect(all).toHaveLength(400);
    const times = all.map((v) => String(v.voicemail_created_at));
    expect([...times].sort().reverse()).toEqual(times);
    for (const v of all) {
      expect(typeof v.uuid).toBe('number');
      expect(String(v.voicemail_created_at)).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(String(v.voicemail_duration)).toMatch(/^\d\d:\d\d:\d\d$/);
      expect(String(v.voicemail_recording_url)).toMatch(/^\/[^/]+\/recordings\/[^/]+\/[^/]+\.wav$/);
      // The provider's link, on the simulator's second server.
      expect(String(v.voicemail_api_recording_url)).toMatch(
        new RegExp(`^${sim.recordingsHostUrl}/2010-04-01/Accounts/AC[0-9a-f]{32}/Recordings/RE[0-9a-f]{32}\\.wav$`),
      );
      expect(v.voicemail_recording_type).toBe('voicemail');
      expect(typeof v.voicemail_to_number === 'number' || /^\+1\d{10}$/.test(String(v.voicemail_to_number))).toBe(true);
    }
    expect(all.some((v) => typeof v.voicemail_from_number === 'number')).toBe(true);
    expect(all.some((v) => typeof v.voicemail_from_number === 'string')).toBe(true);
    expect(all.some((v) => v.voicemail_transcription_summary === null)).toBe(true);
    expect(all.some((v) => v.voicemail_transcription_text === '')).toBe(true);
  });

  it('truth.expected holds the normalized v1 form of each voicemail', () => {
    const vm = sim.truth('biz-1').voicemails[0]!;
    const raw = vm.raw as V2Voicemail;
    expect(vm.id).toBe(String(raw.uuid));
    expect(vm.expected.to_number).toBe(`+${String(raw.voicemail_to_number).replace(/^\+/, '')}`);
    expect(vm.expected.recording_url).toBe(`${sim.recordingsBaseUrl}${String(raw.voicemail_recording_url)}`);
    const [h, m, s] = String(raw.voicemail_duration).split(':').map(Number);
    expect(vm.expected.duration_seconds).toBe(h! * 3600 + m! * 60 + s!);
    expect(vm.expected.created_at).toBe(`${String(raw.voicemail_created_at).replace(' ', 'T')}Z`);
  });

  it('lists calls newest first in v2 shape, the same calls as v1', async () => {
    const res = await call<{ calls: V2Call[] }>(`${sim.v2BaseUrl}/api/all/calls?limit=10`, { token: sim.businesses[1]!.v2Token });
    expect(Object.keys(res.body)).toEqual(['calls']);
    const truth = sim.truth('biz-2');
    expect(res.body.calls).toEqual(truth.v2Calls.slice(0, 10).map((c) => c.raw));
    expect(truth.v2Calls.map((c) => c.expected)).toEqual([...truth.calls].reverse().map((c) => c.expected));
    for (const c of res.body.calls) {
      expect(['inbound', 'outbound']).toContain(c.call_direction);
      const path = c.call_recording_url;
      expect(path === null || (typeof path === 'string' && /^\/.+\.wav$/.test(path))).toBe(true);
    }
  });

  it('shows new voicemails first and rejects a bad limit', async () => {
    const token = sim.businesses[1]!.v2Token;
    sim.addVoicemails('biz-2', 2);
    const res = await call<{ voicemail: V2Voicemail[] }>(`${sim.v2BaseUrl}/api/all/voicemails?limit=3`, { token });
    const truth = sim.truth('biz-2').voicemails;
    expect(truth).toHaveLength(402);
    expect(res.body.voicemail.map((v) => v.uuid)).toEqual(truth.slice(0, 3).map((v) => Number(v.id)));
    expect(Date.parse(String(truth[0]!.expected.created_at))).toBeGreaterThan(Date.parse('2025-06-01T00:00:00Z'));
    expect((await call(`${sim.v2BaseUrl}/api/all/voicemails?limit=abc`, { token })).status).toBe(400);
    expect((await call(`${sim.v2BaseUrl}/api/all/voicemails?limit=1001`, { token })).status).toBe(400);
  });
});

describe('simulator envelopes', () => {
  it('answers legacy paths without the data wrapper and others with it; the list is configurable', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 10, rateLimit: false, legacyEnvelope: ['/sms', '/numbers'] });
    try {
      const token = sim.businesses[0]!.apiKey;
      const sms = await call<{ messages: unknown[]; total: number }>(`${sim.baseUrl}/api/v1/sms?limit=5&offset=2`, { token });
      expect(Object.keys(sms.body).sort()).toEqual(['messages', 'total']);
      expect(sms.body.messages).toEqual(
        sim
          .truth('biz-1')
          .sms.slice(2, 7)
          .map((m) => m.raw),
      );
      const numbers = await call<{ numbers: unknown[]; total: number }>(`${sim.baseUrl}/api/v1/numbers`, { token });
      expect(numbers.body.total).toBe(5);
      const calls = await call<{ data: { calls: unknown[] } }>(`${sim.baseUrl}/api/v1/calls?limit=2`, { token });
      expect(calls.body.data.calls).toHaveLength(2);
    } finally {
      await sim.close();
    }
  });

  it('answers an unknown path with 404 in the ordinary error shape', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 1 });
    try {
      const res = await call<{ error: { code: string } }>(`${sim.baseUrl}/api/v1/forms`, { token: sim.businesses[0]!.apiKey });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('404');
    } finally {
      await sim.close();
    }
  });
});
