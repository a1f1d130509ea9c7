import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { configDocument } from '../support/backfill-harness.js';
import { runCli, spawnCli } from '../support/cli-process.js';
import { startOrg, type FakeOrg } from './harness.js';

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

describe('Salesforce backfill killed with SIGKILL and started again', () => {
  let simulator: Simulator;
  let org: FakeOrg;
  afterAll(async () => {
    await simulator.close();
    await org.close();
  });

  it('ends with every record as exactly one Task: nothing twice, nothing missing', async () => {
    simulator = await startSimulator({ businesses: 1, calls: 900, voicemails: 100, numbers: 3, seed: 41, rateLimit: false });
    org = await startOrg();
    const configPath = join(org.dir, 'callsync.json');
    // Small pages and a slow upstream budget make many kill points.
    const document = configDocument(simulator, '', {
      pageSize: 50,
      rateLimit: { requests: 10, perMs: 1000 },
      streams: ['numbers', 'calls', 'voicemails'],
      sink: org.sinkSection(),
      logLevel: 'info',
    });
    await writeFile(configPath, JSON.stringify(document));
    const truth = simulator.truth(simulator.businesses[0]?.name ?? '');
    const expected = truth.calls.length + truth.voicemails.length;
    let killed = 0;
    for (const tasks of [1, 150, 400]) {
      const cli = spawnCli(['backfill', '--config', configPath, '--no-progress']);
      const deadline = Date.now() + 60_000;
      while (org.fake.tasks().length < tasks && cli.child.exitCode === null && Date.now() < deadline) await sleep(5);
      if (cli.child.exitCode === null) {
        cli.child.kill('SIGKILL');
        killed += 1;
      }
      await cli.exited;
    }
    expect(killed).toBeGreaterThanOrEqual(2);
    const final = await runCli(['backfill', '--config', configPath, '--no-progress']);
    expect(final.code, final.stderr).toBe(0);
    const ids = org.fake.tasks().map((task) => String(task.fields.Callsync_Id__c));
    expect(ids).toHaveLength(expected);
    expect(new Set(ids).size).toBe(expected);
  });
});
