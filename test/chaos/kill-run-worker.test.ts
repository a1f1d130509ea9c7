import { afterAll, describe, expect, it } from 'vitest';
import { expectExact, figuresOf } from './support/figures.js';
import { recordRow } from './support/results.js';
import { collectLogs, spawnRun, startChaosFleet, stopAll, upstreamCalls, waitFor, waitForExactSqlite } from './support/run-harness.js';
import { SecretScanner } from './support/secret-scanner.js';
import { seededRandom, sleep } from './support/seeded.js';
import { countRows } from './support/sqlite-figures.js';
import { cleanupSteps } from '../integration/support/cleanup-steps.js';

const KILLS = 4;
const scanner = new SecretScanner();
const cleanup = cleanupSteps(afterAll);

describe('scenario 2: one of three `run` workers SIGKILLed four times during a multi-business backfill', () => {
  it('ends exact: stalled jobs are taken over, nothing lost, nothing twice', async () => {
    // 4 × 10,000 calls at 50 a page and 10 requests a second per business: a backfill of ~20 s,
    // long enough for four kills even though each restarted replica needs a few seconds to start.
    const upstream = { businesses: 4, calls: 10_000, voicemails: 60, numbers: 4, seed: 202, rateLimit: { limit: 10, windowMs: 1000 } };
    const { sim: simulator, ws, processes, config } = await startChaosFleet('chaos-kill-run', upstream, scanner, cleanup);
    const configPath = ws.writeConfig(config);
    for (let i = 0; i < 3; i += 1) processes.push(spawnRun(configPath));
    await Promise.all(processes.map((p) => p.url));
    const expected = upstreamCalls(simulator);
    const random = seededRandom(2_022);
    let kills = 0;
    let victim = processes[1]!;
    while (kills < KILLS) {
      // The victim works a seeded while (its share of the 12 stream jobs is in flight), then dies.
      await sleep(800 + Math.floor(random() * 1_000));
      if (countRows(ws.dbPath, 'calls') >= expected) break;
      victim.child.kill('SIGKILL');
      expect((await victim.exited).signal).toBe('SIGKILL');
      kills += 1;
      victim = spawnRun(configPath);
      processes.push(victim);
      await victim.url;
    }
    await waitFor('every call stored', () => (countRows(ws.dbPath, 'calls') >= expected ? true : undefined), 120_000, 500);
    const diffs = await waitForExactSqlite(ws.dbPath, simulator);
    const url = await processes[0]!.url;
    await scanner.collectHttp('worker', url);
    await stopAll(processes);
    collectLogs(scanner, 'kill-run', processes);
    scanner.collectSqlite('sink', ws.dbPath);
    const counters = simulator.counters();
    recordRow({ scenario: '2 run worker SIGKILL ×4', faults: { sigkill: kills }, restarts: kills, ...figuresOf(diffs), note: '3 replicas, 4 businesses' });
    expect(kills).toBe(KILLS);
    expectExact(diffs);
    // The shared budget held through the kills: the server never had to refuse a request.
    for (const business of simulator.businesses) expect(counters.businesses[business.name]?.rateLimited, business.name).toBe(0);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('kill-run-worker').leaks).toEqual([]);
  });
});
