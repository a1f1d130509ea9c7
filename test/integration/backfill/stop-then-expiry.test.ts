import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type BrokenPaging, type Simulator } from '../../../simulator/index.js';
import { backfillOnce, testConfig } from '../support/backfill-harness.js';

const OFF: BrokenPaging = { stuckCursor: false, cyclingCursor: false, emptyPagesForever: false, ignoreOffset: false, negativeTotal: false };
// Long enough that no cursor expires between two pages of one walk on a loaded machine; the test
// then moves the simulator's clock past it instead of sleeping.
const TTL_MS = 60_000;

function storedIds(databasePath: string): Set<string> {
  const database = new Database(databasePath, { readonly: true });
  try {
    return new Set(database.prepare(`select id from calls where business_id = 'biz-1'`).pluck().all() as string[]);
  } finally {
    database.close();
  }
}

/**
 * A guard stop, a run once the server is fixed, then arrivals and an expired cursor: the
 * offset fallback starts from the stored offset, so it is exact only if the stop left a
 * position whose cursor and offset agree (an offset ahead of the cursor skips records here).
 */
describe.each(['oldest', 'newest'] as const)('a v1 list %s first: a guard stop, then a cursor expiry', (v1Order) => {
  let simulator: Simulator;
  let directory: string;
  let skippedMs = 0;

  beforeAll(async () => {
    simulator = await startSimulator({
      clock: () => Date.now() + skippedMs,
      businesses: 1,
      calls: 600,
      voicemails: 1,
      numbers: 1,
      seed: 41,
      v1Order,
      cursorTtlMs: TTL_MS,
      rateLimit: false,
    });
    directory = mkdtempSync(join(tmpdir(), 'callsync-stop-expiry-'));
  });

  afterAll(async () => {
    await simulator.close();
  });

  it.each([
    [{ cyclingCursor: true }, /the cursors cycle/],
    [{ stuckCursor: true }, /next_cursor repeats the cursor just sent/],
    [{ emptyPagesForever: true }, /sent an empty page/],
  ] as const)('%j: exact after the fix, arrivals and an expired cursor', async (broken, message) => {
    const databasePath = join(directory, `${Object.keys(broken).join()}.db`);
    const config = testConfig(simulator, databasePath, { pageSize: 100, rateLimit: false, streams: ['calls'], revisit: false });
    simulator.setBrokenPaging({ ...OFF, ...broken });
    const stopped = await backfillOnce(config);
    expect(stopped.outcomes[0]?.streams[0]?.failure?.message).toMatch(message);

    simulator.setBrokenPaging(OFF);
    const fixed = await backfillOnce(config);
    expect(fixed.outcomes[0]?.streams[0]?.failure).toBeUndefined();

    simulator.addCalls('biz-1', 150);
    skippedMs += 2 * TTL_MS;
    const later = await backfillOnce(config);
    expect(later.outcomes[0]?.streams[0]?.failure).toBeUndefined();
    const ids = storedIds(databasePath);
    const truth = simulator.truth('biz-1').calls.map((call) => call.id);
    expect(truth.filter((id) => !ids.has(id))).toEqual([]);
    expect(ids.size).toBe(truth.length);
  });
});
