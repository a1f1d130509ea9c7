import { describe, expect, it } from 'vitest';
import { countLogLines, runCli, spawnCli } from '../integration/support/cli-process.js';
import { expectExact, figuresOf } from './support/figures.js';
import { recordRow } from './support/results.js';
import { backfillScene, writeBackfillConfig } from './support/backfill-scene.js';
import { SecretScanner } from './support/secret-scanner.js';
import { sleep } from './support/seeded.js';
import { diffSqlite } from './support/sqlite-figures.js';

const scanner = new SecretScanner();
// The spec does not say in which order v1 lists calls: this server lists the newest first, so
// arrivals appear at offset 0 and push everything already listed one place further.
const scene = backfillScene(scanner, 'newest', {
  businesses: 2,
  calls: 3_000,
  voicemails: 30,
  numbers: 3,
  seed: 1_313,
  v1Order: 'newest',
  rateLimit: { limit: 50, windowMs: 1000 },
});

function v1Requests(business: string): number {
  return scene.simulator.counters().businesses[business]?.apiKeyRequests ?? 0;
}

describe('scenario 13: a v1 call list served newest first', () => {
  it('first sync SIGKILLed twice with arrivals between, resumed, then more arrivals: exact, the last run paying for what is new', async () => {
    const { simulator, directory } = scene;
    const { configPath, databasePath } = writeBackfillConfig(directory, simulator, 'newest', {
      pageSize: 100,
      rateLimit: { requests: 50, perMs: 1000 },
      logLevel: 'info',
    });
    let kills = 0;
    let arrivals = 0;
    for (const pages of [3, 11]) {
      const cli = spawnCli(['backfill', '--config', configPath, '--no-progress']);
      while (countLogLines(cli.stderr(), 'page stored') < pages && cli.child.exitCode === null) await sleep(5);
      if (cli.child.exitCode === null) {
        cli.child.kill('SIGKILL');
        kills += 1;
      }
      await cli.exited;
      scanner.collect(`killed start ${kills} stderr`, cli.stderr());
      simulator.addCalls('biz-1', 250);
      simulator.addCalls('biz-2', 120);
      arrivals += 370;
    }
    const resumed = await runCli(['backfill', '--config', configPath, '--no-progress']);
    const afterResume = diffSqlite(databasePath, simulator);

    simulator.addCalls('biz-1', 700);
    arrivals += 700;
    simulator.resetCounters();
    const incremental = await runCli(['backfill', '--config', configPath, '--no-progress']);
    const requests = v1Requests('biz-1');
    for (const [label, run] of [
      ['resumed', resumed],
      ['incremental', incremental],
    ] as const) {
      scanner.collect(`${label} stdout`, run.stdout);
      scanner.collect(`${label} stderr`, run.stderr);
    }
    scanner.collectSqlite('sink', databasePath);
    const diffs = diffSqlite(databasePath, simulator);
    recordRow({
      scenario: '13 v1 newest first: first sync SIGKILLed ×2 with arrivals, resumed; 700 more',
      faults: { sigkill: kills, arrivals },
      restarts: kills,
      ...figuresOf(diffs),
      note: `700 new calls cost ${requests} v1 requests`,
    });
    expect(kills).toBe(2);
    expect(resumed.code, resumed.stderr).toBe(0);
    expectExact(afterResume);
    expect(incremental.code, incremental.stderr).toBe(0);
    expectExact(diffs);
    // 7 pages of new calls, one reaching the stored head, and one request for numbers.
    expect(requests).toBeLessThanOrEqual(10);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('newest-first').leaks).toEqual([]);
  });
});
