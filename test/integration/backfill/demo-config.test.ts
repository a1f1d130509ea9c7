import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { runCli } from '../support/cli-process.js';
import { expectMirrorExact } from '../support/sqlite-mirror.js';

describe('config/demo.yaml against `callsync simulate --port 4010 --seed 1`', () => {
  let simulator: Simulator;

  beforeAll(async () => {
    simulator = await startSimulator({ port: 4010, seed: 1, businesses: 3, calls: 700, voicemails: 30 });
  });

  afterAll(async () => {
    await simulator.close();
  });

  it('backfills all three businesses, one of them through the session login, exactly', async () => {
    const database = join(mkdtempSync(join(tmpdir(), 'callsync-demo-config-')), 'demo.db');
    const result = await runCli(['backfill', '--config', 'config/demo.yaml', '--no-progress'], { CALLSYNC_DEMO_DB: database });
    expect(result.code, result.stderr).toBe(0);
    expectMirrorExact(database, simulator);
    expect(simulator.counters().businesses['biz-3']?.sessionRequests).toBeGreaterThan(0);
  });
});
