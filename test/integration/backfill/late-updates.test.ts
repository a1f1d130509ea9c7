import { describe, expect, it } from 'vitest';
import { backfillOnce, requestsByBusiness, testConfig, total } from '../support/backfill-harness.js';
import { simulatorScene } from '../support/simulator-scene.js';
import { readSqliteTable } from '../support/sqlite-mirror.js';

describe.each(['oldest', 'newest'] as const)('late upstream changes (a transcription that appears after the call), v1 list %s first', (v1Order) => {
  const scene = simulatorScene('late', { businesses: 1, calls: 2_000, voicemails: 20, numbers: 2, seed: 13, rateLimit: false, v1Order });

  it('reach the sink in their latest form on the next revisit, reading only the recent window again', async () => {
    const { simulator, databasePath } = scene;
    const options = { rateLimit: false, pageSize: 100, revisit: { window: '1h', every: 1 } } as const;
    await backfillOnce(testConfig(simulator, databasePath, options));
    simulator.addCalls('biz-1', 150);
    await backfillOnce(testConfig(simulator, databasePath, options));
    // The 40th newest call, whichever end the list starts with.
    const fortiethNewest = () => simulator.truth('biz-1').calls.at(v1Order === 'oldest' ? -40 : 39);
    const recent = fortiethNewest();
    if (recent === undefined) throw new Error('no recent call');
    simulator.updateCallTranscription('biz-1', recent.id, 'Caller asked for a quote on solar panels.');
    simulator.resetCounters();

    const run = await backfillOnce(testConfig(simulator, databasePath, options));
    expect(total(run, 'written')).toBe(1);
    const row = readSqliteTable(databasePath, 'calls', 'biz-1').find((stored) => stored.id === recent.id);
    expect(row?.fields.transcription_text).toBe('Caller asked for a quote on solar panels.');
    expect(row?.raw).toEqual(fortiethNewest()?.raw);
    // The 150 recent calls are two pages (plus the page before the window), not the 2,150 of history.
    expect(requestsByBusiness(simulator)['biz-1']).toBeLessThanOrEqual(3 + 1 + 2);
  });
});
