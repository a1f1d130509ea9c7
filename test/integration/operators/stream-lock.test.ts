import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { redisUrl } from '../services.js';
import { configDocument } from '../support/backfill-harness.js';
import { countLogLines, runCli, spawnCli, type CliProcess } from '../support/cli-process.js';
import { runConfig, spawnRun, stopAll, waitFor, workspace, type RunProcess } from '../worker/harness.js';

const FAST = { limit: 50, windowMs: 1000 };
// One request every 1.5 s: the holder keeps its locks while the other processes start, however
// slowly a loaded machine spawns them (finishing 30 pages this way takes 45 s, far beyond any spawn).
const SLOW = { limit: 1, windowMs: 1500 };

describe('one writer per sink × business × stream, across backfill and run', () => {
  const ws = workspace('sink-lock');
  const cleanup: Array<() => unknown> = [];
  let simulator: Simulator;

  beforeAll(async () => {
    // Pages of 50: the first process holds its locks over many requests; `holdLocks` slows it further.
    simulator = await startSimulator({ businesses: 1, calls: 1_500, voicemails: 5, numbers: 2, seed: 3, rateLimit: FAST });
  });

  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
    await simulator.close();
    await ws.cleanup();
  });

  const backfillConfig = (name: string, databasePath: string): string => {
    const path = join(ws.dir, name);
    const document = configDocument(simulator, databasePath, { pageSize: 50, rateLimit: { requests: 5, perMs: 1000 }, logLevel: 'info' });
    writeFileSync(path, JSON.stringify({ ...document, redis: { url: redisUrl, prefix: ws.prefix } }));
    return path;
  };

  const startHolder = async (config: string): Promise<CliProcess> => {
    const first = spawnCli(['backfill', '--config', config, '--no-progress']);
    cleanup.push(async () => {
      if (first.child.exitCode === null) first.child.kill('SIGKILL');
      await first.exited;
    });
    await waitFor('the first backfill to store a page', () => (countLogLines(first.stderr(), 'page stored') > 0 ? true : undefined));
    simulator.setRateLimit(SLOW);
    return first;
  };

  it('a second backfill names the holder and exits 5; with --wait it waits and then finds nothing left to fetch', async () => {
    const config = backfillConfig('backfill.json', ws.dbPath);
    const first = await startHolder(config);
    // A backfill holds its business's stream leases together; numbers is the first of them (it runs first).
    const second = await runCli(['backfill', '--config', config, '--no-progress']);
    const pid = String(first.child.pid);
    expect(second.stderr).toMatch(
      new RegExp(
        `^error: biz-1/numbers is being synced into this sink by callsync backfill \\(pid ${pid} on \\S+, since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)\\nfix: wait for it to finish, or run again with --wait\\n$`,
      ),
    );
    expect(second.code).toBe(5);

    const waiting = spawnCli(['backfill', '--config', config, '--no-progress', '--wait']);
    cleanup.push(async () => {
      if (waiting.child.exitCode === null) waiting.child.kill('SIGKILL');
      await waiting.exited;
    });
    await waitFor('the third backfill to wait', () => (waiting.stderr().includes('waiting: biz-1/numbers') ? true : undefined));
    simulator.setRateLimit(FAST);
    expect((await waiting.exited).code, waiting.stderr()).toBe(0);
    expect(waiting.stderr()).toContain(`waiting: biz-1/numbers is being synced into this sink by callsync backfill (pid ${pid} on `);
    expect((await first.exited).code).toBe(0);
    // It started after the first had stored everything: nothing new to write.
    expect(waiting.stdout()).toMatch(/^biz-1\s+calls\s+ok\s+0\s+0\s/m);
  });

  it('run skips a stream a backfill is syncing into the same sink, saying who holds it', async () => {
    const databasePath = join(ws.dir, 'second.db');
    const first = await startHolder(backfillConfig('backfill-2.json', databasePath));
    const processes: RunProcess[] = [];
    cleanup.push(() => stopAll(processes));
    const run = spawnRun(
      ws.writeConfig(
        {
          ...runConfig(simulator, { prefix: ws.prefix, dbPath: databasePath, every: '1s', businesses: ['biz-1'] }),
          sink: { type: 'sqlite', path: databasePath },
        },
        'run.json',
      ),
    );
    processes.push(run);
    const skipped = await waitFor('run to skip biz-1/calls', () =>
      run.logs.find((entry) => entry.msg === 'another process is syncing this stream into this sink; skipped' && entry.stream === 'calls'),
    );
    simulator.setRateLimit(FAST);
    expect(skipped.holder).toMatch(new RegExp(`^callsync backfill \\(pid ${String(first.child.pid)} on `));
  });
});
