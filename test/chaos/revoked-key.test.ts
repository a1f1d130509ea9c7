import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/index.js';
import { spawnCli } from '../integration/support/cli-process.js';
import { expectExact, figuresOf } from './support/figures.js';
import { recordRow } from './support/results.js';
import { chaosRunConfig, collectLogs, readStatus, spawnRun, stopAll, waitFor, workspace, type RunProcess } from './support/run-harness.js';
import { writeBackfillConfig } from './support/backfill-scene.js';
import { SecretScanner } from './support/secret-scanner.js';
import { sleep } from './support/seeded.js';
import { countRows, diffSqlite } from './support/sqlite-figures.js';
import { cleanupSteps } from '../integration/support/cleanup-steps.js';

const REVOKED = 'biz-2';
const OTHERS = ['biz-1', 'biz-3'];
const scanner = new SecretScanner();
const cleanup = cleanupSteps();

async function start(seed: number): Promise<Simulator> {
  const simulator = await startSimulator({ businesses: 3, calls: 3_000, voicemails: 60, numbers: 3, seed, rateLimit: { limit: 40, windowMs: 1000 } });
  cleanup.push(() => simulator.close());
  scanner.addSimulator(simulator);
  return simulator;
}

function apiKeyRequests(simulator: Simulator, business: string): number {
  return simulator.counters().businesses[business]?.apiKeyRequests ?? 0;
}

/** The revoked business holds only true records, none twice; it just stopped early. */
function expectPartialButClean(diffs: ReturnType<typeof diffSqlite>): void {
  for (const [key, counted] of Object.entries(diffs)) {
    expect(counted.diff.unexpected, key).toEqual([]);
    expect(counted.diff.different, key).toEqual([]);
    expect(counted.stored, key).toBe(counted.distinct);
  }
}

describe('scenario 6: a key revoked mid-run stops only its business', () => {
  it('backfill: exit 1 naming the business with auth; the others complete exactly', async () => {
    const simulator = await start(606);
    const directory = mkdtempSync(join(tmpdir(), 'callsync-chaos-revoke-'));
    const { configPath, databasePath } = writeBackfillConfig(directory, simulator, 'revoke', {
      pageSize: 100,
      rateLimit: { requests: 40, perMs: 1000 },
      logLevel: 'info',
    });
    const cli = spawnCli(['backfill', '--config', configPath, '--no-progress']);
    while (apiKeyRequests(simulator, REVOKED) < 5 && cli.child.exitCode === null) await sleep(2);
    simulator.revokeKey(REVOKED);
    const { code } = await cli.exited;
    scanner.collect('backfill stdout', cli.stdout());
    scanner.collect('backfill stderr', cli.stderr());
    scanner.collectSqlite('sink', databasePath);
    const diffs = diffSqlite(databasePath, simulator, ['calls', 'voicemails', 'numbers'], OTHERS);
    recordRow({ scenario: '6 key revoked (backfill)', faults: { revokedKey: 1 }, restarts: 0, ...figuresOf(diffs), note: `${REVOKED} stopped: exit ${code}` });
    expect(code, cli.stderr()).toBe(1);
    expect(cli.stderr()).toMatch(new RegExp(`business ${REVOKED} failed: auth`));
    for (const other of OTHERS) expect(cli.stderr()).not.toMatch(new RegExp(`business ${other} failed`));
    expectExact(diffs);
    expectPartialButClean(diffSqlite(databasePath, simulator, ['calls'], [REVOKED]));
  });

  it('run: /status shows auth_failed for that business; the others complete exactly', async () => {
    const simulator = await start(616);
    const ws = workspace('chaos-revoke');
    const processes: RunProcess[] = [];
    cleanup.push(
      () => ws.cleanup(),
      () => stopAll(processes),
    );
    const configPath = ws.writeConfig(
      chaosRunConfig(simulator, { prefix: ws.prefix, dbPath: ws.dbPath, every: '1s', pageSize: 100, rateLimit: { requests: 40, perMs: 1000 } }),
    );
    processes.push(spawnRun(configPath));
    const url = await processes[0]!.url;
    await waitFor('the business to be syncing', () => (apiKeyRequests(simulator, REVOKED) >= 5 ? true : undefined), 60_000, 2);
    simulator.revokeKey(REVOKED);
    // The stream that met the 401 marks the business failed before its own status row is written,
    // and the business's other streams show the stop at their next scheduled run: wait for all of it.
    const stopped = await waitFor(
      'every stream of the business auth_failed with a reason on /status',
      async () => {
        const business = (await readStatus(url)).businesses.find((b) => b.name === REVOKED);
        const shown =
          business?.failed != null && business.streams.length === 3 && business.streams.every((s) => s.state === 'auth_failed' && s.lastError != null);
        return shown ? business : undefined;
      },
      30_000,
      100,
    );
    const others = simulator.businesses.filter((b) => OTHERS.includes(b.name)).reduce((sum, b) => sum + simulator.truth(b.name).calls.length, 0);
    await waitFor('the other businesses stored', () => (countRows(ws.dbPath, 'calls') >= others ? true : undefined), 90_000, 500);
    const diffs = await waitFor(
      'the others exact',
      () => {
        const d = diffSqlite(ws.dbPath, simulator, ['calls', 'voicemails', 'numbers'], OTHERS);
        return figuresOf(d).missing === 0 ? d : undefined;
      },
      30_000,
      500,
    );
    await scanner.collectHttp('worker', url);
    await stopAll(processes);
    collectLogs(scanner, 'revoke', processes);
    scanner.collectSqlite('sink', ws.dbPath);
    recordRow({ scenario: '6 key revoked (run)', faults: { revokedKey: 1 }, restarts: 0, ...figuresOf(diffs), note: `${REVOKED} auth_failed` });
    expect(stopped.failed).toMatch(/^auth: .*401/);
    for (const stream of stopped.streams) expect(stream.lastError, stream.stream).toMatch(/^auth: .*401/);
    expectExact(diffs);
    expectPartialButClean(diffSqlite(ws.dbPath, simulator, ['calls'], [REVOKED]));
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('revoked-key').leaks).toEqual([]);
  });
});
