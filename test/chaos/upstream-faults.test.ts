import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../integration/support/cli-process.js';
import { expectExact, figuresOf } from './support/figures.js';
import { recordRow } from './support/results.js';
import { backfillScene, writeBackfillConfig } from './support/backfill-scene.js';
import { SecretScanner } from './support/secret-scanner.js';
import { sleep } from './support/seeded.js';
import { diffSqlite } from './support/sqlite-figures.js';

const CURSOR_TTL_MS = 1_500;
const scanner = new SecretScanner();
const scene = backfillScene(scanner, 'faults', {
  businesses: 3,
  calls: 4_000,
  voicemails: 150,
  numbers: 5,
  seed: 303,
  cursorTtlMs: CURSOR_TTL_MS,
  rateLimit: { limit: 60, windowMs: 1000 },
  faults: { errorRate: 0.05, truncateRate: 0.01, resetRate: 0.01, slowRate: 0.05, slowMs: 300 },
});

describe('scenario 3: every upstream fault in one backfill', () => {
  it('retries 500s, truncations, resets and slow answers, waits out a 429 storm, survives an expired cursor: exact', async () => {
    const { simulator, directory } = scene;
    const { configPath, databasePath } = writeBackfillConfig(directory, simulator, 'faults', {
      pageSize: 100,
      rateLimit: { requests: 60, perMs: 1000 },
      logLevel: 'info',
    });
    const cli = spawnCli(['backfill', '--config', configPath, '--no-progress']);
    // A storm that ignores the budget breaks out in the middle of the first run.
    const requests = () => Object.values(simulator.counters().businesses).reduce((sum, counters) => sum + counters.apiKeyRequests, 0);
    while (requests() < 30 && cli.child.exitCode === null) await sleep(5);
    simulator.setFaults({ stormUntilMs: Date.now() + 2_000 });
    const first = { code: (await cli.exited).code, stdout: cli.stdout(), stderr: cli.stderr() };
    scanner.collect('first stdout', first.stdout);
    scanner.collect('first stderr', first.stderr);
    expect(first.code, first.stderr).toBe(0);
    // New arrivals, then a pause longer than the cursor's life: the stored cursors are expired.
    for (const business of simulator.businesses) simulator.addCalls(business.name, 450);
    await sleep(CURSOR_TTL_MS + 500);
    const second = await runCli(['backfill', '--config', configPath, '--no-progress']);
    scanner.collect('second stdout', second.stdout);
    scanner.collect('second stderr', second.stderr);
    scanner.collectSqlite('sink', databasePath);
    const { faults, businesses } = simulator.counters();
    const diffs = diffSqlite(databasePath, simulator);
    recordRow({
      scenario: '3 upstream faults together',
      faults: {
        '500': faults.errors,
        truncated: faults.truncated,
        reset: faults.resets,
        slow: faults.slow,
        storm429: faults.storm429,
        expiredCursor: faults.expiredCursors,
      },
      restarts: 1,
      ...figuresOf(diffs),
    });
    expect(second.code, second.stderr).toBe(0);
    expect(faults.errors).toBeGreaterThan(0);
    expect(faults.truncated).toBeGreaterThan(0);
    expect(faults.resets).toBeGreaterThan(0);
    expect(faults.slow).toBeGreaterThan(0);
    expect(faults.storm429).toBeGreaterThan(0);
    expect(faults.expiredCursors).toBeGreaterThanOrEqual(3);
    // The storm's retry_after was honoured: a handful of 429s per business, not a hammering.
    for (const [name, counters] of Object.entries(businesses)) expect(counters.rateLimited, name).toBeLessThanOrEqual(6);
    expectExact(diffs);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('upstream-faults').leaks).toEqual([]);
  });
});
