import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDocument } from '../support/backfill-harness.js';
import { countLogLines, runCli, spawnCli } from '../support/cli-process.js';
import { simulatorScene } from '../support/simulator-scene.js';
import { expectMirrorExact, readSqliteTable } from '../support/sqlite-mirror.js';

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

describe('backfill stopped by Ctrl-C or SIGTERM', () => {
  const scene = simulatorScene('signal', { businesses: 1, calls: 3_000, voicemails: 20, numbers: 3, seed: 21, rateLimit: { limit: 20, windowMs: 1000 } });

  it.each([['SIGINT'], ['SIGTERM']] as const)('%s: the summary counts what is stored, exit 130, a rerun resumes exactly', async (signal) => {
    const { simulator, directory } = scene;
    const databasePath = join(directory, `${signal}.db`);
    const configPath = join(directory, `${signal}.json`);
    writeFileSync(
      configPath,
      JSON.stringify(configDocument(simulator, databasePath, { pageSize: 100, rateLimit: { requests: 20, perMs: 1000 }, logLevel: 'info' })),
    );
    const cli = spawnCli(['backfill', '--config', configPath, '--no-progress']);
    while (countLogLines(cli.stderr(), 'page stored') < 3 && cli.child.exitCode === null) await sleep(5);
    cli.child.kill(signal);
    const { code } = await cli.exited;
    expect(code, cli.stderr()).toBe(130);

    const stored = readSqliteTable(databasePath, 'calls', 'biz-1').length;
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(3_000);
    const line = cli
      .stdout()
      .split('\n')
      .find((row) => /^biz-1\s+calls\s/.test(row));
    expect(line).toMatch(new RegExp(`^biz-1\\s+calls\\s+stopped\\s+${stored}\\s.*stopped by signal after storing ${stored} records; run again to resume`));
    expect(cli.stdout()).not.toMatch(/failed|aborted/);
    expect(cli.stderr()).toContain(`biz-1/calls: stopped by signal after storing ${stored} records; run again to resume\n`);
    // A business's streams run numbers first (a CRM needs its tracked numbers before its calls), then calls,
    // then voicemails: the stop never reached voicemails, listed as stopped with nothing stored, not as done.
    expect(cli.stdout()).toMatch(/^biz-1\s+numbers\s+ok\s/m);
    expect(cli.stdout()).toMatch(/^biz-1\s+voicemails\s+stopped\s+0\s/m);

    const before = simulator.counters();
    const rerun = await runCli(['backfill', '--config', configPath, '--no-progress']);
    expect(rerun.code, rerun.stderr).toBe(0);
    const fetchedAgain = simulator.counters();
    // Resumed, not restarted: the calls stored before the stop are not fetched again (one page in flight may be).
    const callsRow = rerun.stdout.split('\n').find((row) => /^biz-1\s+calls\s/.test(row)) ?? '';
    const rerunRecords = Number(callsRow.split(/\s+/)[3]);
    expect(rerunRecords).toBeLessThanOrEqual(3_000 - stored + 100);
    expect(rerunRecords).toBeGreaterThanOrEqual(3_000 - stored);
    expect(fetchedAgain).not.toEqual(before);
    expectMirrorExact(databasePath, simulator);
  });
});
