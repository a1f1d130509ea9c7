import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { runCli, spawnCli, type CliProcess } from '../support/cli-process.js';
import { expectMirrorExact } from '../support/sqlite-mirror.js';

// config/demo.yaml's upstream is 127.0.0.1:4010, the port the README's quick start serves: the blocks
// that bind it share this file, whose blocks run one after another, so other files can run beside it.
const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

/** The shell lines of a README quick start (`<!-- name -->` … `<!-- /name -->`), `callsync` for the checkout's command. */
function quickStart(name: string): string[] {
  const block = new RegExp(`<!-- ${name} -->([\\s\\S]*?)<!-- /${name} -->`).exec(README)?.[1];
  if (block === undefined) throw new Error(`README.md has no <!-- ${name} --> block`);
  const code = /```sh\n([\s\S]*?)```/.exec(block)?.[1] ?? '';
  return code
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.replace(/^npx tsx src\/entry\/cli\/main\.ts /, 'callsync '));
}

/** The arguments of a quick-start line that runs callsync, split as the shell would (no quoting in these lines). */
function args(line: string): string[] {
  return line
    .replace(/^callsync /, '')
    .replace(/ &$/, '')
    .split(/\s+/);
}

describe('README quick start 1: backfill into SQLite', () => {
  const lines = quickStart('quick-start-sqlite');
  let simulator: CliProcess;

  beforeAll(async () => {
    simulator = spawnCli(args(lines[0] ?? ''));
    await vi.waitFor(
      () => {
        if (!simulator.stdout().includes('simulator listening')) throw new Error(`the simulator has not started: ${simulator.stderr()}`);
      },
      { timeout: 30_000, interval: 100 },
    );
  });

  afterAll(async () => {
    simulator.child.kill('SIGTERM');
    await simulator.exited;
  });

  it('is the simulator, a backfill and a status, run here as written', () => {
    expect(lines).toEqual([
      'callsync simulate --port 4010 --seed 1 &',
      'callsync backfill --config config/demo.yaml',
      'callsync status --config config/demo.yaml',
    ]);
  });

  it('backfills every business of config/demo.yaml, then its status reads them', async () => {
    // The file config/demo.yaml names by default, moved out of the checkout for the test.
    const database = join(mkdtempSync(join(tmpdir(), 'callsync-quick-start-')), 'demo-cli.db');
    const env = { CALLSYNC_DEMO_DB: database };
    const backfill = await runCli([...args(lines[1] ?? ''), '--no-progress'], env);
    expect(backfill.code, backfill.stderr).toBe(0);
    const db = new Database(database, { readonly: true });
    try {
      const calls = db.prepare('select business_id, count(*) as n from calls group by business_id order by business_id').all();
      expect(calls).toEqual(['biz-1', 'biz-2', 'biz-3'].map((business_id) => ({ business_id, n: 5000 })));
    } finally {
      db.close();
    }
    const status = await runCli(args(lines[2] ?? ''), env);
    expect(status.code, status.stderr).toBe(0);
  });
});

describe('README quick start 3: a CRM', () => {
  it('checks config/hubspot.yaml with the variables the line exports', async () => {
    const lines = quickStart('quick-start-crm');
    expect(lines[0]).toMatch(/^export ACME_API_KEY=… ACME_V2_TOKEN=… HUBSPOT_TOKEN=…$/);
    expect(lines.slice(1)).toEqual([
      'callsync check-config --config config/hubspot.yaml --check-connections',
      'callsync backfill --config config/hubspot.yaml',
    ]);
    // Reaching HubSpot needs a real portal (the HubSpot tests use the fake); the config check runs as written without it.
    const env = {
      ACME_API_KEY: `ctk_live_${'a1'.repeat(20)}`,
      ACME_V2_TOKEN: `v2_${'b2'.repeat(20)}`,
      HUBSPOT_TOKEN: 'pat-na1-00000000-0000-0000-0000-000000000000',
    };
    const check = await runCli(
      args(lines[1] ?? '').filter((arg) => arg !== '--check-connections'),
      env,
    );
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain('valid (sink hubspot)');
  });
});

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
