import { describe, expect, it } from 'vitest';
import { LONE_SURROGATE_TEXT, startSimulator } from '../../../simulator/index.js';
import { call } from './http.js';

type Call = { id: string; transcription_text: string; custom_data?: unknown };
type Page = { data: { calls: Call[]; total: number } };

function depth(value: unknown): number {
  let d = 0;
  for (let v = value; Array.isArray(v); v = v[0] as unknown) d++;
  return d;
}

describe('simulator records hostile to the sink', () => {
  it('hostileRecords: a call nested 6,000 deep, one with a lone surrogate, one oversized field, at consecutive indexes', async () => {
    const sim = await startSimulator({
      businesses: 1,
      calls: 60,
      rateLimit: false,
      hostileRecords: { deepNesting: 6000, loneSurrogate: true, oversizedFieldBytes: 3_000_000, firstIndex: 20 },
    });
    try {
      const res = await call<Page>(`${sim.baseUrl}/api/v1/calls?limit=50&offset=0`, { token: sim.businesses[0]!.apiKey });
      expect(res.status).toBe(200);
      const calls = res.body.data.calls;
      expect(calls.map((c) => c.id)).toEqual(
        sim
          .truth('biz-1')
          .calls.slice(0, 50)
          .map((c) => c.id),
      );
      expect(depth(calls[20]!.custom_data)).toBe(6000);
      expect(res.text).toContain(`"custom_data":${'['.repeat(6000)}]`);
      // Serializing the record again overflows the stack: the trap a writer must survive.
      expect(() => JSON.stringify(calls[20])).toThrow(RangeError);
      expect(res.text).toContain('"transcription_text":"The caller said \\ud800 and hung up"');
      expect(calls[21]!.transcription_text).toBe(LONE_SURROGATE_TEXT);
      expect(calls[22]!.transcription_text).toHaveLength(3_000_000);
      expect(calls.filter((c) => c.custom_data !== undefined)).toHaveLength(1);
      const truth = sim.truth('biz-1').calls;
      expect(depth((truth[20]!.raw as Call).custom_data)).toBe(6000);
      expect(truth[21]!.expected.transcription_text).toBe(LONE_SURROGATE_TEXT);
      const v2 = await call(`${sim.v2BaseUrl}/api/all/calls?limit=100`, { token: sim.businesses[0]!.v2Token });
      expect(v2.text).toContain('\\ud800');
    } finally {
      await sim.close();
    }
  });

  it('addHostileCalls appends them as new calls and returns their ids; without the switches no call is hostile', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 30, rateLimit: false });
    try {
      const token = sim.businesses[0]!.apiKey;
      const plain = await call<Page>(`${sim.baseUrl}/api/v1/calls?limit=500&offset=0`, { token });
      expect(plain.text).not.toContain('custom_data');
      const ids = sim.addHostileCalls('biz-1', { deepNesting: 50, oversizedFieldBytes: 1000 });
      expect(ids).toHaveLength(2);
      const res = await call<Page>(`${sim.baseUrl}/api/v1/calls?limit=500&offset=0`, { token });
      expect(res.body.data.total).toBe(32);
      expect(res.body.data.calls.slice(30).map((c) => c.id)).toEqual(ids);
      expect(depth(res.body.data.calls[30]!.custom_data)).toBe(50);
      expect(res.body.data.calls[31]!.transcription_text).toHaveLength(1000);
    } finally {
      await sim.close();
    }
  });
});
