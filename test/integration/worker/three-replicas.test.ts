import { Client } from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresUrl, uniqueName } from '../services.js';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import { diffSqliteAgainstSimulator, summarizeDiffs } from '../support/sqlite-mirror.js';
import { runConfig, spawnRun, stopAll, waitFor, workspace, type RunProcess } from './harness.js';
import { budgetUse, countRows, redisCommandCount } from './measures.js';

const LIMIT = 60;
// 3000 calls at 10 a page: 300 requests per business, about 5 windows of 1 s at 60 a window. Small
// pages keep the work per request low: the test measures the shared budget, not the CPU.
const CALLS = 3000;
const PAGE_SIZE = 10;

interface StatusDocument {
  businesses: Array<{ name: string; failed: string | null; streams: Array<{ stream: string; state: string; pages: number }> }>;
}

async function status(url: string): Promise<StatusDocument> {
  return (await (await fetch(`${url}/status`)).json()) as StatusDocument;
}

/** Polls a cheap row count first: a full diff every poll would starve the simulator (same process). */
async function waitForMirror(dbPath: string, sim: Simulator): Promise<void> {
  const expected = sim.businesses.reduce((sum, b) => sum + sim.truth(b.name).calls.length, 0);
  await waitFor('every call stored', () => (countRows(dbPath, 'calls') >= expected ? true : undefined), 90_000, 500);
  await waitFor('the mirror to equal the truth', () => {
    const diffs = Object.values(diffSqliteAgainstSimulator(dbPath, sim));
    return diffs.every((d) => d.missing.length + d.unexpected.length + d.different.length === 0) ? true : undefined;
  }, 30_000, 1000);
}

describe('callsync run: three replicas, five businesses', () => {
  let cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  async function setUp(label: string, calls = CALLS, sink?: Record<string, unknown>) {
    const sim = await startSimulator({ businesses: 5, calls, voicemails: 50, numbers: 5, rateLimit: { limit: LIMIT, windowMs: 1000 } });
    const ws = workspace(label);
    const processes: RunProcess[] = [];
    cleanup.push(() => sim.close(), () => ws.cleanup(), () => stopAll(processes));
    const config = ws.writeConfig(runConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, every: '2s', pageSize: PAGE_SIZE, sink }));
    return { sim, ws, processes, config };
  }

  it('shares one budget per business: no 429, never over the limit, at least 90% used while there is backlog', async () => {
    // Replicas share a warehouse as they would in production: Postgres. Three processes writing one
    // SQLite file serialise on its lock, which measures SQLite's busy handler rather than the budget.
    const schema = uniqueName('budget');
    const pg = new Client({ connectionString: postgresUrl });
    await pg.connect();
    cleanup.push(async () => {
      await pg.query(`drop schema if exists "${schema}" cascade`);
      await pg.end();
    });
    const { sim, processes, config } = await setUp('budget', 20, { type: 'postgres', url: postgresUrl, schema });
    const waitForMirror = async (): Promise<void> => {
      const expected = sim.businesses.reduce((sum, b) => sum + sim.truth(b.name).calls.length, 0);
      await waitFor('every call stored', async () => {
        const found = await pg.query<{ n: string }>(`select count(*) as n from "${schema}".calls`).catch(() => undefined);
        return Number(found?.rows[0]?.n ?? 0) >= expected ? true : undefined;
      }, 90_000, 250);
    };
    // Replicas first sync a small history, so the backlog lands on warm processes.
    for (let i = 0; i < 3; i += 1) processes.push(spawnRun(config));
    const url = await processes[0]!.url;
    await Promise.all(processes.map((p) => p.url));
    await waitForMirror();
    sim.resetCounters();
    const commandsBefore = await redisCommandCount();
    const pagesBefore = (await status(url)).businesses.flatMap((b) => b.streams).reduce((sum, s) => sum + s.pages, 0);
    for (const b of sim.businesses) sim.addCalls(b.name, CALLS);
    await waitForMirror();
    const commands = (await redisCommandCount()) - commandsBefore;
    const pages = (await status(url)).businesses.flatMap((b) => b.streams).reduce((sum, s) => sum + s.pages, 0) - pagesBefore;
    await stopAll(processes);

    const counters = sim.counters();
    const uses = sim.businesses.map((b) => ({ business: b.name, ...budgetUse(sim, b.name, LIMIT) }));
    console.log(JSON.stringify({ uses, redisCommandsPerPage: commands / pages, pages, commands }));
    for (const b of sim.businesses) {
      expect(counters.businesses[b.name]?.rateLimited, b.name).toBe(0);
      expect(counters.businesses[b.name]?.maxWindowCount, b.name).toBeLessThanOrEqual(LIMIT);
    }
    for (const use of uses) {
      expect(use.windows, use.business).toBeGreaterThanOrEqual(1);
      expect(use.use, use.business).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('ends exactly equal to the truth when one replica is SIGKILLed mid-backfill', async () => {
    const { sim, ws, processes, config } = await setUp('sigkill');
    for (let i = 0; i < 3; i += 1) processes.push(spawnRun(config));
    const victim = processes[1]!;
    await victim.url;
    await waitFor('the victim to be syncing', () => (victim.logs.length > 0 && sim.counters().businesses['biz-1']!.apiKeyRequests > 40 ? true : undefined), 60_000, 50);
    victim.child.kill('SIGKILL');
    expect((await victim.exited).signal).toBe('SIGKILL');
    await waitForMirror(ws.dbPath, sim);
    expect(summarizeDiffs(diffSqliteAgainstSimulator(ws.dbPath, sim))).toEqual(
      Object.fromEntries(sim.businesses.flatMap((b) => ['calls', 'voicemails', 'numbers'].map((s) => [`${b.name}/${s}`, 'missing 0, unexpected 0, different 0']))),
    );
    for (const b of sim.businesses) expect(sim.counters().businesses[b.name]?.rateLimited).toBe(0);
  });
});
