import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import { backfillOnce, requestsByBusiness, testConfig, total } from '../support/backfill-harness.js';
import { diffSqliteAgainstSimulator, summarizeDiffs } from '../support/sqlite-mirror.js';

const CLEAN = 'missing 0, unexpected 0, different 0';

function voicemailCheckpoints(path: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(`select business_id, position, records_synced, updated_at from sync_state where stream = 'voicemails' order by business_id`).all();
  } finally {
    db.close();
  }
}

describe('backfill into SQLite: 3 businesses × 20,000 calls, voicemails and numbers', () => {
  let simulator: Simulator;
  let databasePath: string;

  beforeAll(async () => {
    simulator = await startSimulator({
      businesses: 3,
      calls: 20_000,
      voicemails: 400,
      numbers: 8,
      seed: 7,
      // A minute's budget in a second: the same rules, sixty times faster.
      rateLimit: { limit: 60, windowMs: 1000 },
    });
    databasePath = join(mkdtempSync(join(tmpdir(), 'callsync-mirror-')), 'mirror.db');
  });

  afterAll(async () => {
    await simulator.close();
  });

  it('ends with tables equal to the simulator record for record, with zero 429s', async () => {
    const run = await backfillOnce(testConfig(simulator, databasePath));
    expect(run.outcomes.every((outcome) => outcome.failure === undefined && outcome.streams.every((s) => s.failure === undefined))).toBe(true);
    const diffs = summarizeDiffs(diffSqliteAgainstSimulator(databasePath, simulator));
    for (const [key, summary] of Object.entries(diffs)) expect(summary, key).toBe(CLEAN);
    expect(total(run, 'written')).toBe(3 * (20_000 + 400 + 8));
    for (const counters of Object.values(simulator.counters().businesses)) {
      expect(counters.rateLimited).toBe(0);
      expect(counters.maxWindowCount).toBeLessThanOrEqual(60);
    }
  });

  it('makes one request per business and stream and writes nothing when nothing is new', async () => {
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
    simulator.addCalls('biz-1', 1_200);
    simulator.addVoicemails('biz-2', 30);
    simulator.resetCounters();
    const run = await backfillOnce(testConfig(simulator, databasePath));
    expect(total(run, 'written')).toBe(1_230);
    const requests = requestsByBusiness(simulator);
    // 1,200 calls are 3 pages of 500; plus one request each for voicemails and numbers.
    expect(requests['biz-1']).toBeLessThanOrEqual(5);
    expect(requests['biz-2']).toBeLessThanOrEqual(3);
    const diffs = summarizeDiffs(diffSqliteAgainstSimulator(databasePath, simulator));
    for (const [key, summary] of Object.entries(diffs)) expect(summary, key).toBe(CLEAN);
  });
});
