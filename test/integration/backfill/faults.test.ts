import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../simulator/index.js';
import { backfillOnce, requestsByBusiness, testConfig, total } from '../support/backfill-harness.js';
import { expectMirrorExact } from '../support/sqlite-mirror.js';

let simulator: Simulator | undefined;
/** Time the simulator's clock is ahead of the real one: what a test skipped instead of sleeping. */
let skippedMs = 0;

async function start(options: SimulatorOptions): Promise<{ simulator: Simulator; databasePath: string }> {
  simulator = await startSimulator({
    clock: () => Date.now() + skippedMs,
    businesses: 2,
    calls: 3_000,
    voicemails: 120,
    numbers: 4,
    seed: 5,
    rateLimit: { limit: 200, windowMs: 1000 },
    ...options,
  });
  return { simulator, databasePath: join(mkdtempSync(join(tmpdir(), 'callsync-faults-')), 'faults.db') };
}

const budget = { rateLimit: { requests: 200, perMs: 1000 }, pageSize: 100 } as const;

afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
  skippedMs = 0;
});

// Long enough that no cursor of the first walk expires between two of its pages, however loaded the
// machine (400 ms did: that walk fell back to offsets and stored no cursor); the test then skips past it.
const CURSOR_TTL_MS = 60_000;

describe('backfill under upstream faults ends with exact tables', () => {
  it('falls back from an expired cursor to an offset walk with one page of overlap, not a full re-sync', async () => {
    const { simulator: sim, databasePath } = await start({ cursorTtlMs: CURSOR_TTL_MS });
    await backfillOnce(testConfig(sim, databasePath, budget));
    sim.addCalls('biz-1', 250);
    skippedMs += 2 * CURSOR_TTL_MS;
    sim.resetCounters();
    const run = await backfillOnce(testConfig(sim, databasePath, budget));
    expect(sim.counters().faults.expiredCursors).toBeGreaterThanOrEqual(1);
    expect(run.warnings.some((warning) => warning.includes('cursor rejected'))).toBe(true);
    expect(total(run, 'written')).toBe(250);
    // 1 rejected cursor + 4 offset pages (overlap page + 250 new) + voicemails + numbers, far from 30 pages.
    expect(requestsByBusiness(sim)['biz-1']).toBeLessThanOrEqual(8);
    expectMirrorExact(databasePath, sim);
  });

  it('newest first, a complete walk never resumes from a stored cursor: expiry costs nothing', async () => {
    const { simulator: sim, databasePath } = await start({ cursorTtlMs: CURSOR_TTL_MS, v1Order: 'newest' });
    await backfillOnce(testConfig(sim, databasePath, budget));
    sim.addCalls('biz-1', 250);
    skippedMs += 2 * CURSOR_TTL_MS;
    sim.resetCounters();
    const run = await backfillOnce(testConfig(sim, databasePath, budget));
    expect(sim.counters().faults.expiredCursors).toBe(0);
    expect(total(run, 'written')).toBe(250);
    // 3 pages from the head (the third reaches the stored head) + voicemails + numbers.
    expect(requestsByBusiness(sim)['biz-1']).toBeLessThanOrEqual(5);
    expectMirrorExact(databasePath, sim);
  });

  it('retries 500s, truncated bodies and connection resets', async () => {
    const { simulator: sim, databasePath } = await start({ faults: { errorRate: 0.15, truncateRate: 0.1, resetRate: 0.1 } });
    const run = await backfillOnce(testConfig(sim, databasePath, budget));
    const faults = sim.counters().faults;
    expect(faults.errors).toBeGreaterThan(0);
    expect(faults.truncated).toBeGreaterThan(0);
    expect(faults.resets).toBeGreaterThan(0);
    expect(run.outcomes.flatMap((outcome) => outcome.streams).every((stream) => stream.failure === undefined)).toBe(true);
    expectMirrorExact(databasePath, sim);
  });

  it('waits out a 429 storm that ignores the budget', async () => {
    const { simulator: sim, databasePath } = await start({});
    sim.setFaults({ stormUntilMs: Date.now() + 1_500 });
    const run = await backfillOnce(testConfig(sim, databasePath, budget));
    expect(sim.counters().faults.storm429).toBeGreaterThan(0);
    expect(run.outcomes.flatMap((outcome) => outcome.streams).every((stream) => stream.failure === undefined)).toBe(true);
    // Each business honoured retry_after instead of hammering: a handful of 429s, not hundreds.
    for (const counters of Object.values(sim.counters().businesses)) expect(counters.rateLimited).toBeLessThanOrEqual(4);
    expectMirrorExact(databasePath, sim);
  });
});
