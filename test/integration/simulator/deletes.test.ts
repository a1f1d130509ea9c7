import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../../simulator/index.js';
import type { CallsPage } from './http.js';
import { call, cursorWalk, offsetWalk } from './http.js';

describe.each(['oldest', 'newest'] as const)('simulator records deleted upstream (v1Order %s)', (order) => {
  it('deleteCalls removes calls from every list, total and truth; a cursor issued before still walks the rest', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 300, rateLimit: false, v1Order: order });
    try {
      const token = sim.businesses[0]!.apiKey;
      const before = sim.truth('biz-1').calls.map((c) => c.id);
      const first = await call<CallsPage>(`${sim.baseUrl}/api/v1/calls?limit=100`, { token });
      const gone = [before[0]!, before[150]!, before[151]!, before[299]!];
      sim.deleteCalls('biz-1', gone);
      const kept = before.filter((id) => !gone.includes(id));
      expect(sim.truth('biz-1').calls.map((c) => c.id)).toEqual(kept);
      expect(await offsetWalk(sim.baseUrl, sim.businesses[0]!.apiKey, 70)).toEqual({ ids: kept, total: 296 });
      expect(await cursorWalk(sim.baseUrl, token, 70)).toEqual(kept);
      let cursor = first.body.data.next_cursor ?? '';
      const rest: string[] = [];
      for (;;) {
        const res = await call<CallsPage>(`${sim.baseUrl}/api/v1/calls?limit=100&cursor=${cursor}`, { token });
        rest.push(...res.body.data.calls.map((c) => c.id));
        if (!res.body.data.has_more) break;
        cursor = res.body.data.next_cursor ?? '';
      }
      expect(rest).toEqual(kept.slice(kept.indexOf(before[100]!)));
      const v2 = await call<{ calls: { uuid: number }[] }>(`${sim.v2BaseUrl}/api/all/calls?limit=1000`, { token: sim.businesses[0]!.v2Token });
      expect(v2.body.calls.map((c) => String(c.uuid))).toEqual(sim.truth('biz-1').v2Calls.map((c) => c.id));
      expect(v2.body.calls).toHaveLength(296);
    } finally {
      await sim.close();
    }
  });
});

describe('simulator voicemails deleted upstream', () => {
  it('deleteVoicemails removes them from v2 and the truth; unknown ids and deleted calls throw', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 10, voicemails: 40, rateLimit: false });
    try {
      const truth = sim.truth('biz-1').voicemails.map((v) => v.id);
      sim.deleteVoicemails('biz-1', [truth[3]!, truth[39]!]);
      const res = await call<{ voicemail: { uuid: number }[] }>(`${sim.v2BaseUrl}/api/all/voicemails?limit=100`, {
        token: sim.businesses[0]!.v2Token,
      });
      const kept = truth.filter((_, i) => i !== 3 && i !== 39);
      expect(res.body.voicemail.map((v) => String(v.uuid))).toEqual(kept);
      expect(sim.truth('biz-1').voicemails.map((v) => v.id)).toEqual(kept);
      expect(() => sim.deleteVoicemails('biz-1', [truth[3]!])).toThrow(/no voicemail/);
      const call0 = sim.truth('biz-1').calls[0]!.id;
      sim.deleteCalls('biz-1', [call0]);
      expect(() => sim.deleteCalls('biz-1', [call0])).toThrow(/no call/);
      expect(() => sim.deleteCalls('biz-1', ['not-an-id'])).toThrow(/no call/);
    } finally {
      await sim.close();
    }
  });
});
