import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { inlineConfig } from '../../../src/entry/cli/demo/demo-config.js';
import type { Simulator } from '../../../simulator/index.js';
import { backfillOnce, configDocument, requestsByBusiness, total, type ConfigOptions } from '../support/backfill-harness.js';
import { countLogLines, runCli, spawnCli } from '../support/cli-process.js';
import { simulatorScene } from '../support/simulator-scene.js';
import { expectMirrorExact } from '../support/sqlite-mirror.js';

function storedPosition(databasePath: string, business: string, stream: string): Record<string, unknown> {
  const database = new Database(databasePath, { readonly: true });
  try {
    const row = database.prepare('select position from sync_state where business_id = ? and stream = ?').get(business, stream) as
      { position: string } | undefined;
    return row === undefined ? {} : (JSON.parse(row.position) as Record<string, unknown>);
  } finally {
    database.close();
  }
}

function document(simulator: Simulator, databasePath: string, options: ConfigOptions, order?: string) {
  const base = configDocument(simulator, databasePath, options);
  return order === undefined ? base : { ...base, upstream: { ...base.upstream, order } };
}

describe('a v1 call list served newest first (order: auto)', () => {
  const scene = simulatorScene('newest', {
    businesses: 2,
    calls: 2_500,
    voicemails: 40,
    numbers: 3,
    seed: 21,
    v1Order: 'newest',
    rateLimit: { limit: 200, windowMs: 1000 },
  });
  const options: ConfigOptions = { pageSize: 100, rateLimit: { requests: 200, perMs: 1000 } };
  const config = () => inlineConfig(document(scene.simulator, scene.databasePath, options), '(test)');

  it('first backfill is exact and stores the detected order', async () => {
    const { simulator, databasePath } = scene;
    const run = await backfillOnce(config());
    expect(run.outcomes.flatMap((outcome) => outcome.streams).filter((stream) => stream.failure !== undefined)).toEqual([]);
    expectMirrorExact(databasePath, simulator);
    expect(storedPosition(databasePath, 'biz-1', 'calls')).toMatchObject({ order: 'newest_first' });
  });

  it('after arrivals the next backfill takes every new call, paying one page beyond them', async () => {
    const { simulator, databasePath } = scene;
    simulator.addCalls('biz-1', 700);
    simulator.addCalls('biz-2', 150);
    simulator.resetCounters();
    const run = await backfillOnce(config());
    expect(total(run, 'written')).toBe(850);
    expectMirrorExact(databasePath, simulator);
    const requests = requestsByBusiness(simulator);
    // 700 calls are 7 pages of 100, the 8th reaches the stored head; plus voicemails and numbers.
    expect(requests['biz-1']).toBeLessThanOrEqual(10);
    expect(requests['biz-2']).toBeLessThanOrEqual(4);
  });

  it('with nothing new a backfill makes one request per stream and writes nothing', async () => {
    const { simulator } = scene;
    simulator.resetCounters();
    const run = await backfillOnce(config());
    expect(total(run, 'written')).toBe(0);
    for (const requests of Object.values(requestsByBusiness(simulator))) expect(requests).toBeLessThanOrEqual(3);
  });
});

describe.each(['newest', 'oldest'] as const)('a first sync of a list %s first killed twice, arrivals between the kills', (v1Order) => {
  const scene = simulatorScene('newest-kill', {
    businesses: 1,
    calls: 4_000,
    voicemails: 20,
    numbers: 2,
    seed: 23,
    v1Order,
    rateLimit: { limit: 100, windowMs: 1000 },
  });

  it('resumes to an exact mirror', async () => {
    const { simulator, directory, databasePath } = scene;
    const configPath = join(directory, 'callsync.json');
    const options: ConfigOptions = { pageSize: 100, rateLimit: { requests: 100, perMs: 1000 }, logLevel: 'info' };
    writeFileSync(configPath, JSON.stringify(document(simulator, databasePath, options)));
    let killed = 0;
    for (const pages of [4, 9]) {
      const cli = spawnCli(['backfill', '--config', configPath, '--no-progress']);
      while (countLogLines(cli.stderr(), 'page stored') < pages && cli.child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 5));
      if (cli.child.exitCode === null) {
        cli.child.kill('SIGKILL');
        killed += 1;
      }
      await cli.exited;
      simulator.addCalls('biz-1', 250);
    }
    expect(killed).toBe(2);
    const final = await runCli(['backfill', '--config', configPath, '--no-progress']);
    expect(final.code, final.stderr).toBe(0);
    expectMirrorExact(databasePath, simulator);
    expect(storedPosition(databasePath, 'biz-1', 'calls')).toMatchObject({ order: `${v1Order}_first` });
  });
});
