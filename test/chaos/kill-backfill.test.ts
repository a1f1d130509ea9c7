import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/index.js';
import { configDocument } from '../integration/support/backfill-harness.js';
import { countLogLines, runCli, spawnCli } from '../integration/support/cli-process.js';
import { expectExact, figuresOf } from './support/figures.js';
import { recordRow } from './support/results.js';
import { SecretScanner } from './support/secret-scanner.js';
import { seededRandom, sleep } from './support/seeded.js';
import { diffSqlite } from './support/sqlite-figures.js';

const KILLS = 20;
const scanner = new SecretScanner();
let simulator: Simulator;
let directory: string;

beforeAll(async () => {
  // 2 × 25,000 calls at 100 a page is 500 pages; 20 requests a second per business makes it ~13 s of budget plus restarts.
  simulator = await startSimulator({ businesses: 2, calls: 25_000, voicemails: 200, numbers: 5, seed: 101, rateLimit: { limit: 20, windowMs: 1000 } });
  scanner.addSimulator(simulator);
  directory = mkdtempSync(join(tmpdir(), 'callsync-chaos-kill-'));
});

afterAll(async () => {
  await simulator.close();
});

describe('scenario 1: backfill SIGKILLed at 20 random points and started again', () => {
  it('ends exact: nothing lost, nothing twice; the final run exits 0', async () => {
    const databasePath = join(directory, 'kill.db');
    const configPath = join(directory, 'callsync.json');
    writeFileSync(
      configPath,
      JSON.stringify(configDocument(simulator, databasePath, { pageSize: 100, rateLimit: { requests: 20, perMs: 1000 }, logLevel: 'info' })),
    );
    const random = seededRandom(20_261_122);
    let kills = 0;
    let starts = 0;
    // Each start is killed after a seeded number of stored pages (1..20), until 20 kills landed.
    while (kills < KILLS && starts < KILLS * 2) {
      const pages = 1 + Math.floor(random() * 20);
      const cli = spawnCli(['backfill', '--config', configPath, '--no-progress']);
      starts += 1;
      while (countLogLines(cli.stderr(), 'page stored') < pages && cli.child.exitCode === null) await sleep(5);
      if (cli.child.exitCode === null) {
        cli.child.kill('SIGKILL');
        kills += 1;
      }
      const exit = await cli.exited;
      scanner.collect(`start ${starts} stderr`, cli.stderr());
      scanner.collect(`start ${starts} stdout`, cli.stdout());
      if (exit.signal === null) expect(exit.code, cli.stderr()).toBe(0);
    }
    const final = await runCli(['backfill', '--config', configPath, '--no-progress']);
    scanner.collect('final stdout', final.stdout);
    scanner.collect('final stderr', final.stderr);
    scanner.collectSqlite('sink', databasePath);
    const diffs = diffSqlite(databasePath, simulator);
    recordRow({ scenario: '1 backfill SIGKILL ×20', faults: { sigkill: kills }, restarts: starts, ...figuresOf(diffs) });
    expect(kills).toBe(KILLS);
    expect(final.code, final.stderr).toBe(0);
    expectExact(diffs);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('kill-backfill').leaks).toEqual([]);
  });
});
