import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDocument } from '../support/backfill-harness.js';
import { countLogLines, runCli, spawnCli } from '../support/cli-process.js';
import { simulatorScene } from '../support/simulator-scene.js';
import { expectMirrorExact } from '../support/sqlite-mirror.js';

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

describe('backfill killed with SIGKILL and started again', () => {
  const scene = simulatorScene('kill', { businesses: 2, calls: 6_000, voicemails: 300, numbers: 5, seed: 11, rateLimit: { limit: 100, windowMs: 1000 } });

  it('ends with the same exact tables: nothing lost, nothing twice', async () => {
    const { simulator, directory, databasePath } = scene;
    const configPath = join(directory, 'callsync.json');
    // Small pages and a modest budget make many kill points over a few seconds.
    writeFileSync(
      configPath,
      JSON.stringify(configDocument(simulator, databasePath, { pageSize: 100, rateLimit: { requests: 100, perMs: 1000 }, logLevel: 'info' })),
    );
    const killPoints = [1, 3, 8, 15, 24];
    let killed = 0;
    for (const pages of killPoints) {
      const cli = spawnCli(['backfill', '--config', configPath, '--no-progress']);
      while (countLogLines(cli.stderr(), 'page stored') < pages && cli.child.exitCode === null) await sleep(5);
      if (cli.child.exitCode === null) {
        cli.child.kill('SIGKILL');
        killed += 1;
      }
      await cli.exited;
    }
    expect(killed).toBeGreaterThanOrEqual(3);
    const final = await runCli(['backfill', '--config', configPath, '--no-progress']);
    expect(final.code, final.stderr).toBe(0);
    expectMirrorExact(databasePath, simulator);
  });
});
