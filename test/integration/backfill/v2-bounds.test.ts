import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../../../simulator/index.js';
import { backfillOnce, testConfig } from '../support/backfill-harness.js';
import { simulatorScene } from '../support/simulator-scene.js';
import { diffMirror, readSqliteTable } from '../support/sqlite-mirror.js';

function voicemailPosition(databasePath: string): Record<string, unknown> {
  const database = new Database(databasePath, { readonly: true });
  try {
    const row = database.prepare("select position from sync_state where business_id = 'biz-1' and stream = 'voicemails'").get() as { position: string };
    return JSON.parse(row.position) as Record<string, unknown>;
  } finally {
    database.close();
  }
}

function missingVoicemails(databasePath: string, simulator: Simulator): number {
  return diffMirror(readSqliteTable(databasePath, 'voicemails', 'biz-1'), simulator.truth('biz-1').voicemails).missing.length;
}

describe('a v2 server that returns at most 100 records whatever limit asks', () => {
  const scene = simulatorScene('v2cap', { businesses: 1, calls: 10, voicemails: 60, numbers: 1, seed: 41, v2LimitCap: 100, rateLimit: false });

  it('180 new voicemails: 100 stored, a named gap, the cap learned and reported, never a silent ok', async () => {
    const { simulator, databasePath } = scene;
    await backfillOnce(testConfig(simulator, databasePath, { streams: ['voicemails'] }));
    expect(missingVoicemails(databasePath, simulator)).toBe(0);
    simulator.addVoicemails('biz-1', 180);
    const run = await backfillOnce(testConfig(simulator, databasePath, { streams: ['voicemails'] }));
    expect(run.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/biz-1\/voicemails: .*got 100 and none already stored; the server returns at most 100/),
        expect.stringMatching(/biz-1\/voicemails: .*100 records returned .*server cap 100.*\(gap\)/),
      ]),
    );
    expect(voicemailPosition(databasePath)).toMatchObject({ serverCap: 100 });
    expect(missingVoicemails(databasePath, simulator)).toBe(80);
  });
});

describe('a v2 voicemail dated a day ahead', () => {
  const scene = simulatorScene('future', { businesses: 1, calls: 10, voicemails: 30, numbers: 1, seed: 43, rateLimit: false });

  it('is stored and warned about once; the 71 voicemails after it all arrive', async () => {
    const { simulator, databasePath } = scene;
    await backfillOnce(testConfig(simulator, databasePath, { streams: ['voicemails'] }));
    simulator.addVoicemails('biz-1', 1, { createdAt: new Date(Date.now() + 86_400_000) });
    const first = await backfillOnce(testConfig(simulator, databasePath, { streams: ['voicemails'] }));
    expect(first.warnings.filter((warning) => /dated .* ahead of now; stored, but it does not move the high-water mark/.test(warning))).toHaveLength(1);
    expect(missingVoicemails(databasePath, simulator)).toBe(0);

    simulator.addVoicemails('biz-1', 71);
    const second = await backfillOnce(testConfig(simulator, databasePath, { streams: ['voicemails'] }));
    expect(second.warnings).toEqual([]);
    expect(missingVoicemails(databasePath, simulator)).toBe(0);
  });
});

describe('a v2 uuid served as 100000016.0000000001 beside the record 100000016', () => {
  const scene = simulatorScene('uuid', { businesses: 1, calls: 10, voicemails: 30, numbers: 1, seed: 45, v2FractionalUuid: true, rateLimit: false });

  it('is a dead letter naming the value; its twin is stored untouched', async () => {
    const { simulator, databasePath } = scene;
    const run = await backfillOnce(testConfig(simulator, databasePath, { streams: ['voicemails'] }));
    expect(run.outcomes[0]?.streams[0]?.failure).toBeUndefined();
    const truth = simulator.truth('biz-1').voicemails;
    const fractional = truth.find((record) => record.id.includes('.'));
    expect(fractional?.id).toMatch(/^\d+\.0000000001$/);
    const diff = diffMirror(readSqliteTable(databasePath, 'voicemails', 'biz-1'), truth);
    expect(diff.missing).toEqual([fractional?.id]);
    expect(diff.different).toEqual([]);
    expect(diff.unexpected).toEqual([]);
    const database = new Database(databasePath, { readonly: true });
    try {
      const reasons = database.prepare("select reason from dead_letters where business_id = 'biz-1' and stream = 'voicemails'").pluck().all();
      expect(reasons).toEqual([expect.stringMatching(new RegExp(`not an exact integer id: ${fractional?.id.replace('.', '\\.') ?? ''}`))]);
    } finally {
      database.close();
    }
  });
});
