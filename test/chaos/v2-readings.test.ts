import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../simulator/index.js';
import { configDocument } from '../integration/support/backfill-harness.js';
import { runCli } from '../integration/support/cli-process.js';
import { expectExact, figuresOf } from './support/figures.js';
import { recordRow } from './support/results.js';
import { SecretScanner } from './support/secret-scanner.js';
import { diffSqlite } from './support/sqlite-figures.js';

const scanner = new SecretScanner();
let simulator: Simulator | undefined;

afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

async function start(options: SimulatorOptions) {
  const sim = await startSimulator({ businesses: 1, calls: 50, numbers: 2, rateLimit: false, ...options });
  simulator = sim;
  scanner.addSimulator(sim);
  const directory = mkdtempSync(join(tmpdir(), 'callsync-chaos-v2-'));
  const databasePath = join(directory, 'v2.db');
  const configPath = join(directory, 'callsync.json');
  writeFileSync(configPath, JSON.stringify(configDocument(sim, databasePath, { rateLimit: false })));
  const backfill = async (label: string) => {
    const run = await runCli(['backfill', '--config', configPath, '--no-progress']);
    scanner.collect(`${label} stdout`, run.stdout);
    scanner.collect(`${label} stderr`, run.stderr);
    return run;
  };
  return { sim, databasePath, backfill };
}

describe('scenario 16: v2 servers that read differently from ours', () => {
  it('a server capping `limit` at 100 silently: after 180 new voicemails the run names the gap and the cap, never a silent ok', async () => {
    const { sim, databasePath, backfill } = await start({ voicemails: 60, seed: 1_616, v2LimitCap: 100 });
    const first = await backfill('first');
    sim.addVoicemails('biz-1', 180);
    const second = await backfill('after 180');
    scanner.collectSqlite('sink', databasePath);
    const diffs = diffSqlite(databasePath, sim);
    const figures = figuresOf(diffs);
    recordRow({
      scenario: '16 v2 server capping limit at 100 silently, 180 new',
      faults: { v2LimitCap: 1 },
      restarts: 0,
      ...figures,
      note: `the ${figures.missing} beyond the cap named as a gap (server cap 100); nothing else missing`,
    });
    expect(first.code, first.stderr).toBe(0);
    expectExact(diffSqlite(databasePath, sim, ['calls', 'numbers']));
    // v2 has no paging: what lies beyond a capped response cannot be fetched, only reported.
    expect(figures.missing).toBe(80);
    expect(figures.duplicated).toBe(0);
    expect(second.stderr + second.stdout).toMatch(/server returns at most 100/);
    expect(second.stderr + second.stdout).toMatch(/server cap 100.*\(gap\)/);
  });

  it('a voicemail dated a day ahead: stored, warned about once, and the 71 after it all arrive', async () => {
    const { sim, databasePath, backfill } = await start({ voicemails: 30, seed: 1_617 });
    const runs = [await backfill('first')];
    sim.addVoicemails('biz-1', 1, { createdAt: new Date(Date.now() + 86_400_000) });
    runs.push(await backfill('future-dated'));
    sim.addVoicemails('biz-1', 71);
    runs.push(await backfill('after 71'));
    scanner.collectSqlite('sink', databasePath);
    const diffs = diffSqlite(databasePath, sim);
    // Logged once (stderr); the summary table of that run repeats it in its note column.
    const warnings = runs.flatMap((run) => run.stderr.match(/ahead of now; stored, but it does not move the high-water mark/g) ?? []);
    recordRow({
      scenario: '16 v2 voicemail dated a day ahead, then 71 new',
      faults: { futureDated: 1 },
      restarts: 0,
      ...figuresOf(diffs),
      note: `${warnings.length} warning in 3 runs, each exit 0`,
    });
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    expect(warnings).toHaveLength(1);
    expectExact(diffs);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('v2-readings').leaks).toEqual([]);
  });
});
