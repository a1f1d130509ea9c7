import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../simulator/index.js';
import { startSimulator } from '../../../simulator/index.js';
import { call } from './http.js';

type V2Voicemail = { uuid: number; voicemail_created_at: string };
type V2Call = { uuid: number; call_created_at: string };

describe('simulator v2 readings', () => {
  let sim: Simulator;
  const vmUrl = (limit: number): string => `${sim.v2BaseUrl}/api/all/voicemails?limit=${limit}`;

  beforeAll(async () => {
    sim = await startSimulator({ businesses: 2, calls: 110, voicemails: 250, rateLimit: false, v2LimitCap: 100, v2FractionalUuid: true });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('v2LimitCap: at most 100 records whatever limit asks, with a 200 and no hint; smaller limits are honoured', async () => {
    const token = sim.businesses[0]!.v2Token;
    const big = await call<{ voicemail: V2Voicemail[] }>(vmUrl(1000), { token });
    expect(big.status).toBe(200);
    expect(Object.keys(big.body)).toEqual(['voicemail']);
    expect(big.body.voicemail).toEqual(
      sim
        .truth('biz-1')
        .voicemails.slice(0, 100)
        .map((v) => v.raw),
    );
    expect((await call<{ voicemail: unknown[] }>(vmUrl(30), { token })).body.voicemail).toHaveLength(30);
    const calls = await call<{ calls: V2Call[] }>(`${sim.v2BaseUrl}/api/all/calls?limit=500`, { token });
    expect(calls.body.calls).toHaveLength(100);
    expect((await call(vmUrl(1001), { token })).status).toBe(400);
  });

  it('a future-dated voicemail stays at the head; voicemails arriving after it are served below it', async () => {
    const token = sim.businesses[1]!.v2Token;
    const future = new Date(Date.now() + 365 * 86400_000);
    sim.addVoicemails('biz-2', 1, { createdAt: future });
    sim.addVoicemails('biz-2', 3);
    const served = (await call<{ voicemail: V2Voicemail[] }>(vmUrl(10), { token })).body.voicemail;
    const truth = sim.truth('biz-2').voicemails;
    expect(served).toEqual(truth.slice(0, 10).map((v) => v.raw));
    expect(served[0]!.voicemail_created_at).toBe(future.toISOString().slice(0, 19).replace('T', ' '));
    // The three arrivals are newer uuids than the future one, dated now, and below it.
    expect(served.slice(1, 4).every((v) => v.uuid > served[0]!.uuid)).toBe(true);
    expect(served.slice(1, 4).every((v) => v.voicemail_created_at < served[0]!.voicemail_created_at)).toBe(true);
    expect(truth).toHaveLength(254);
  });

  it('a future-dated call keeps its arrival slot: calls arriving after it are served above it on v2, after it on v1', async () => {
    const future = new Date(Date.now() + 30 * 86400_000);
    sim.addCalls('biz-2', 1, { createdAt: future });
    sim.addCalls('biz-2', 2);
    const served = (await call<{ calls: V2Call[] }>(`${sim.v2BaseUrl}/api/all/calls?limit=3`, { token: sim.businesses[1]!.v2Token })).body.calls;
    expect(served).toEqual(
      sim
        .truth('biz-2')
        .v2Calls.slice(0, 3)
        .map((c) => c.raw),
    );
    expect(served[2]!.call_created_at).toBe(future.toISOString().slice(0, 19).replace('T', ' '));
    expect(served[0]!.call_created_at < served[2]!.call_created_at).toBe(true);
    const v1 = sim
      .truth('biz-2')
      .calls.slice(-3)
      .map((c) => c.expected.created_at);
    expect(v1[0]).toBe(`${future.toISOString().slice(0, 19)}Z`);
    expect(String(v1[2]) < String(v1[0])).toBe(true);
  });

  it('v2FractionalUuid: one record per list carries its predecessor uuid plus .0000000001; the truth names it by that text', async () => {
    const token = sim.businesses[0]!.v2Token;
    const calls = await call<{ calls: V2Call[] }>(`${sim.v2BaseUrl}/api/all/calls?limit=1000`, { token });
    expect(calls.text).toContain('{"uuid":100000016.0000000001,');
    expect(calls.text).toContain('{"uuid":100000016,');
    expect(calls.text).not.toContain('"uuid":100000017,');
    const truthIds = sim.truth('biz-1').v2Calls.map((c) => c.id);
    expect(truthIds).toContain('100000016.0000000001');
    expect(truthIds).toContain('100000016');
    // The twin and its predecessor are one value to a JSON parser: the trap a client must not fall into.
    expect(calls.body.calls.filter((c) => c.uuid === 100_000_016)).toHaveLength(2);
    const all = (await call<{ voicemail: V2Voicemail[] }>(vmUrl(100), { token })).text;
    // Voicemail 16 is far below the capped head, so the full truth holds it instead.
    expect(all).not.toContain('.0000000001');
    expect(sim.truth('biz-1').voicemails.map((v) => v.id)).toContain('190000016.0000000001');
  });

  it('without the switches, records serve integer uuids and limit 1000 returns 1000', async () => {
    const plain = await startSimulator({ businesses: 1, calls: 1200, voicemails: 20, rateLimit: false });
    try {
      const res = await call<{ calls: V2Call[] }>(`${plain.v2BaseUrl}/api/all/calls?limit=1000`, { token: plain.businesses[0]!.v2Token });
      expect(res.body.calls).toHaveLength(1000);
      expect(res.text).not.toContain('.0000000001');
      expect(plain.truth('biz-1').voicemails.map((v) => v.id)).toContain('190000017');
    } finally {
      await plain.close();
    }
  });
});
