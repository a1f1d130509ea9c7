import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { backfillOnce, requestsByBusiness, testConfig, total } from '../support/backfill-harness.js';
import { simulatorScene } from '../support/simulator-scene.js';
import { expectMirrorExact } from '../support/sqlite-mirror.js';

function voicemailCheckpoints(path: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(`select business_id, position, records_synced, updated_at from sync_state where stream = 'voicemails' order by business_id`).all();
  } finally {
    db.close();
  }
}

describe('backfill into SQLite: 3 businesses × 20,000 calls, voicemails and numbers', () => {
  const scene = simulatorScene('mirror', {
    businesses: 3,
    calls: 20_000,
    voicemails: 400,
    numbers: 8,
    seed: 7,
    // A minute's budget in a second: the same rules, sixty times faster.
    rateLimit: { limit: 60, windowMs: 1000 },
  });

  it('ends with tables equal to the simulator record for record, with zero 429s', async () => {
    const { simulator, databasePath } = scene;
    const run = await backfillOnce(testConfig(simulator, databasePath));
    expect(run.outcomes.every((outcome) => outcome.failure === undefined && outcome.streams.every((s) => s.failure === undefined))).toBe(true);
    expectMirrorExact(databasePath, simulator);
    expect(total(run, 'written')).toBe(3 * (20_000 + 400 + 8));
    for (const counters of Object.values(simulator.counters().businesses)) {
      expect(counters.rateLimited).toBe(0);
      expect(counters.maxWindowCount).toBeLessThanOrEqual(60);
    }
  });

  it('makes one request per business and stream and writes nothing when nothing is new', async () => {
    const { simulator, databasePath } = scene;
    simulator.resetCounters();
    const checkpointsBefore = voicemailCheckpoints(databasePath);
    const run = await backfillOnce(testConfig(simulator, databasePath));
    expect(total(run, 'written')).toBe(0);
    for (const requests of Object.values(requestsByBusiness(simulator))) expect(requests).toBeLessThanOrEqual(3);
    // An idle v2 poll ends where it began: its checkpoint row is not written again (updated_at included).
    expect(checkpointsBefore).toHaveLength(3);
    expect(voicemailCheckpoints(databasePath)).toEqual(checkpointsBefore);
  });

  it('fetches only the new records after new arrivals', async () => {
    const { simulator, databasePath } = scene;
    simulator.addCalls('biz-1', 1_200);
    simulator.addVoicemails('biz-2', 30);
    simulator.resetCounters();
    const run = await backfillOnce(testConfig(simulator, databasePath));
    expect(total(run, 'written')).toBe(1_230);
    const requests = requestsByBusiness(simulator);
    // 1,200 calls are 3 pages of 500; plus one request each for voicemails and numbers.
    expect(requests['biz-1']).toBeLessThanOrEqual(5);
    expect(requests['biz-2']).toBeLessThanOrEqual(3);
    expectMirrorExact(databasePath, simulator);
  });
});
