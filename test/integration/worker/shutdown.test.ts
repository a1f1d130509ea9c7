import { describe, expect, it } from 'vitest';
import { diffSqliteAgainstSimulator, EXACT_MIRROR, summarizeDiffs } from '../support/sqlite-mirror.js';
import { runConfig, spawnRun, startFleet, waitFor } from './harness.js';
import { countRows, storedVersusCheckpoint } from './measures.js';
import { cleanupSteps } from '../support/cleanup-steps.js';

// 60 pages of 20 per business at 10 requests a second: the SIGTERM lands mid-backlog, after budget waits.
const CALLS = 1200;
const PER_SECOND = 10;

describe('callsync run: graceful shutdown and budget delays', () => {
  const cleanup = cleanupSteps();

  it('exits 0 on SIGTERM with the checkpoint matching the stored rows; a restart ends exact', async () => {
    // No budget wait in place: every wait moves the job to delayed.
    const { sim, ws, processes } = await startFleet(
      'shutdown',
      { businesses: 2, calls: CALLS, voicemails: 20, numbers: 3, rateLimit: { limit: PER_SECOND, windowMs: 1000 } },
      cleanup,
    );
    const config = ws.writeConfig(
      runConfig(sim, {
        prefix: ws.prefix,
        dbPath: ws.dbPath,
        rateLimit: { requests: PER_SECOND, perMs: 1000 },
        worker: { maxBudgetWaitMs: 0, shutdownTimeoutMs: 8000 },
      }),
    );
    const first = spawnRun(config);
    processes.push(first);
    // Waits for a budget wait rather than assuming one: on a loaded machine requests may come slower than the budget.
    const budgetWaited = () => first.logs.some((l) => l.msg === 'waiting for budget; job delayed');
    await waitFor('a part of the backlog after a budget wait', () => (countRows(ws.dbPath, 'calls') >= 600 && budgetWaited() ? true : undefined));
    first.child.kill('SIGTERM');
    const exit = await first.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(first.logs.some((l) => l.msg === 'stopped')).toBe(true);
    for (const b of sim.businesses) {
      const { rows, synced } = storedVersusCheckpoint(ws.dbPath, b.name, 'calls');
      expect(synced, b.name).toBe(rows);
    }
    expect(countRows(ws.dbPath, 'calls')).toBeLessThan(2 * CALLS);

    processes.push(spawnRun(config));
    await waitFor('the whole backlog', () => (countRows(ws.dbPath, 'calls') >= 2 * CALLS ? true : undefined), 90_000, 500);
    await waitFor(
      'every stream',
      () => {
        const diffs = summarizeDiffs(diffSqliteAgainstSimulator(ws.dbPath, sim));
        return Object.values(diffs).every((d) => d === EXACT_MIRROR) ? true : undefined;
      },
      20_000,
      1000,
    );
    for (const b of sim.businesses) expect(sim.counters().businesses[b.name]?.rateLimited).toBe(0);
    for (const b of sim.businesses) expect(sim.counters().businesses[b.name]?.maxWindowCount).toBeLessThanOrEqual(PER_SECOND);
  });
});
