import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../../../simulator/index.js';
import { cleanupSteps } from '../support/cleanup-steps.js';
import { deleteKeys, runConfig, spawnRun, startFleet, waitFor } from '../worker/harness.js';
import { upstreamRecordings } from './upstream-recordings.js';

interface StateRow {
  readonly business_id: string;
  readonly stream: string;
  readonly id: string;
  readonly recording_state: string;
  readonly recording_archive_key: string | null;
  readonly recording_sha256: string | null;
  readonly recording_bytes: number | null;
}

/** Upstream's recordings keyed as the `recordings` table's rows are read here. */
function keyedUpstreamRecordings(sim: Simulator) {
  return upstreamRecordings(sim).map(({ business, stream, id, served }) => ({ key: `${business}/${stream}/${id}`, served }));
}

/** The archive's state rows, by `business/stream/id`; none while `run` has not created the table. */
function stateRows(dbPath: string): Map<string, StateRow> {
  if (!existsSync(dbPath)) return new Map();
  const db = new Database(dbPath, { readonly: true, timeout: 10_000 });
  try {
    const found = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'recordings'").get();
    const rows = found === undefined ? [] : (db.prepare('select * from recordings').all() as StateRow[]);
    return new Map(rows.map((row) => [`${row.business_id}/${row.stream}/${row.id}`, row]));
  } finally {
    db.close();
  }
}

/** Polls until every recording upstream holds is `archived` in the table; answers the rows. */
async function waitForArchived(sim: Simulator, dbPath: string, what: string): Promise<Map<string, StateRow>> {
  return waitFor(
    what,
    () => {
      const rows = stateRows(dbPath);
      return keyedUpstreamRecordings(sim).every(({ key }) => rows.get(key)?.recording_state === 'archived') ? rows : undefined;
    },
    60_000,
    500,
  );
}

/** Each recording's row and its file in the folder archive hold the simulator's bytes. */
function expectArchivedAsServed(sim: Simulator, rows: ReadonlyMap<string, StateRow>, archiveDir: string): void {
  for (const { key, served } of keyedUpstreamRecordings(sim)) {
    const row = rows.get(key);
    expect(row, key).toMatchObject({ recording_state: 'archived', recording_sha256: served.sha256, recording_bytes: served.bytes });
    const bytes = readFileSync(join(archiveDir, row?.recording_archive_key ?? ''));
    expect(createHash('sha256').update(bytes).digest('hex'), key).toBe(served.sha256);
  }
}

// How soon a new recording is archived is a timing figure: the test waits for the state, never times it.
describe('callsync run with recordings: archiving follows each sync through its own queue', () => {
  const cleanup = cleanupSteps();

  it('archives the history, then the recordings of calls that arrive later, with the simulator’s SHA-256', async () => {
    const { sim, ws, processes } = await startFleet(
      'rec-run',
      { businesses: 2, calls: 40, voicemails: 4, numbers: 1, rateLimit: false, recordings: { size: { min: 4_096, max: 16_384 } } },
      cleanup,
    );
    const archiveDir = join(ws.dir, 'archive');
    const config = {
      ...runConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, every: '2s' }),
      recordings: {
        archive: { type: 'folder', path: archiveDir },
        concurrency: 2,
        budget: { requestsPerMinute: 100_000, countAgainstApi: true },
        retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 50 },
      },
    };
    processes.push(spawnRun(ws.writeConfig(config)));
    const history = keyedUpstreamRecordings(sim);
    // Both kinds of link are in the scene, so the check below cannot pass on an empty list.
    expect(history.filter(({ key }) => key.includes('/calls/')).length).toBeGreaterThan(20);
    expect(history.filter(({ key }) => key.includes('/voicemails/')).length).toBeGreaterThan(0);
    expectArchivedAsServed(sim, await waitForArchived(sim, ws.dbPath, 'the history’s recordings archived'), archiveDir);

    // New calls upstream: the next scheduled syncs store them, and their archive jobs download their recordings.
    for (let round = 0; round < 2; round += 1) {
      sim.addCalls('biz-1', 4);
      sim.addCalls('biz-2', 2);
      expectArchivedAsServed(sim, await waitForArchived(sim, ws.dbPath, `round ${round}: the new calls’ recordings archived`), archiveDir);
    }
    expect(keyedUpstreamRecordings(sim).length).toBeGreaterThan(history.length);
    const counters = sim.counters().recordings;
    expect(counters.withCredentials).toBe(0);
    expect(counters.byStatus['200'] ?? 0).toBeGreaterThanOrEqual(keyedUpstreamRecordings(sim).length);
    expect(processes[0]?.logs.filter((line) => line.msg === 'recording failed')).toEqual([]);
    expect(processes[0]?.child.exitCode).toBeNull();
  }, 300_000);

  it('two replicas archive within each business’s budget when downloads count against the API: no 429, no window over the limit', async () => {
    const budget = { limit: 10, windowMs: 1000 };
    // `rateLimit: 'api'`: the simulator takes each download from its business's API bucket, the stricter reading of the spec.
    const { sim, ws, processes } = await startFleet(
      'rec-run-budget',
      { businesses: 2, calls: 60, voicemails: 4, numbers: 1, rateLimit: budget, recordings: { size: 4_096, rateLimit: 'api' } },
      cleanup,
    );
    const archiveDir = join(ws.dir, 'archive');
    const config = ws.writeConfig({
      ...runConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, every: '2s', rateLimit: { requests: budget.limit, perMs: budget.windowMs } }),
      recordings: { archive: { type: 'folder', path: archiveDir }, concurrency: 4, budget: { requestsPerMinute: 100_000, countAgainstApi: true } },
    });
    processes.push(spawnRun(config), spawnRun(config));
    const rows = await waitForArchived(sim, ws.dbPath, 'every recording archived by two replicas');
    expectArchivedAsServed(sim, rows, archiveDir);
    const counters = sim.counters();
    // Pages and downloads of both replicas together took from one budget per business.
    expect(counters.recordings.byStatus['200'] ?? 0).toBeGreaterThanOrEqual(keyedUpstreamRecordings(sim).length);
    for (const { name } of sim.businesses) {
      expect(counters.businesses[name]?.rateLimited, name).toBe(0);
      expect(counters.businesses[name]?.maxWindowCount, name).toBeLessThanOrEqual(budget.limit);
    }
    expect(counters.recordings.byStatus['429'] ?? 0).toBe(0);
  }, 300_000);

  it('stops on SIGTERM while downloads wait for the recordings budget, and a restart archives what was left pending', async () => {
    const { sim, ws, processes } = await startFleet(
      'rec-run-stop',
      { businesses: 2, calls: 60, voicemails: 4, numbers: 1, rateLimit: false, recordings: { size: 4_096 } },
      cleanup,
    );
    const archiveDir = join(ws.dir, 'archive');
    const withBudget = (requestsPerMinute: number, prefix: string): string =>
      ws.writeConfig(
        {
          ...runConfig(sim, { prefix, dbPath: ws.dbPath, every: '2s' }),
          recordings: { archive: { type: 'folder', path: archiveDir }, concurrency: 2, budget: { requestsPerMinute, countAgainstApi: false } },
        },
        `callsync-${requestsPerMinute}.json`,
      );
    // 20 downloads a minute: the first replica stops with most recordings still waiting for their turn.
    const first = spawnRun(withBudget(20, ws.prefix));
    processes.push(first);
    const archived = (): number => [...stateRows(ws.dbPath).values()].filter((row) => row.recording_state === 'archived').length;
    await waitFor('a first recording archived', () => (archived() > 0 ? true : undefined), 60_000, 200);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    const left = [...stateRows(ws.dbPath).values()].filter((row) => row.recording_state !== 'archived');
    expect(left.length).toBeGreaterThan(0);
    // Cut off by the shutdown, not failed: the rows stay pending.
    expect(left.every((row) => row.recording_state === 'pending')).toBe(true);

    // On a Redis of its own (another prefix): the first replica's queue is gone and its spent window of
    // the shared budget holds nothing back, so only the catch-up pass at start can archive the rest.
    const fresh = `${ws.prefix}-restart`;
    cleanup.push(() => deleteKeys(fresh));
    processes.push(spawnRun(withBudget(100_000, fresh)));
    expectArchivedAsServed(sim, await waitForArchived(sim, ws.dbPath, 'the rest archived after the restart'), archiveDir);
  }, 300_000);
});
