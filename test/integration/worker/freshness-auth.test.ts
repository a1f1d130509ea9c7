import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../../simulator/index.js';
import { diffSqliteAgainstSimulator, EXACT_MIRROR, summarizeDiffs } from '../support/sqlite-mirror.js';
import { runConfig, spawnRun, stopAll, waitFor, workspace, type RunProcess } from './harness.js';
import { countRows, hasCall } from './measures.js';
import { cleanupSteps } from '../support/cleanup-steps.js';

interface StreamDocument {
  stream: string;
  state: string;
  lastError: string | null;
  updatedAt: string;
}
interface StatusDocument {
  businesses: Array<{ name: string; failed: string | null; streams: StreamDocument[] }>;
}

// How quickly a new call arrives is a timing figure: the bench measures it (`fig-freshness`).
describe('callsync run: new calls and a revoked key', () => {
  const cleanup = cleanupSteps();

  it('stores calls that arrive after the history, in later scheduled runs of the same process', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 50, voicemails: 5, numbers: 2, rateLimit: { limit: 60, windowMs: 1000 } });
    const ws = workspace('fresh');
    const processes: RunProcess[] = [];
    cleanup.push(
      () => sim.close(),
      () => ws.cleanup(),
      () => stopAll(processes),
    );
    processes.push(spawnRun(ws.writeConfig(runConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, every: '2s' }))));
    await waitFor('the history', () => (countRows(ws.dbPath, 'calls') >= 50 ? true : undefined));
    expect(summarizeDiffs(diffSqliteAgainstSimulator(ws.dbPath, sim, ['calls']))['biz-1/calls']).toBe(EXACT_MIRROR);

    for (let round = 0; round < 2; round += 1) {
      sim.addCalls('biz-1', 3);
      const newest = sim.truth('biz-1').calls.at(-1)!.id;
      await waitFor(`new call ${newest}`, () => (hasCall(ws.dbPath, 'biz-1', newest) ? true : undefined));
    }
    expect(countRows(ws.dbPath, 'calls')).toBe(56);
    expect(summarizeDiffs(diffSqliteAgainstSimulator(ws.dbPath, sim, ['calls']))['biz-1/calls']).toBe(EXACT_MIRROR);
    expect(processes[0]!.child.exitCode).toBeNull();
  });

  it('stops a business whose key is revoked, shows auth_failed with the reason, and the others finish; resume lifts it', async () => {
    const sim = await startSimulator({ businesses: 2, calls: 200, voicemails: 5, numbers: 2, rateLimit: { limit: 60, windowMs: 1000 } });
    const ws = workspace('auth');
    const processes: RunProcess[] = [];
    cleanup.push(
      () => sim.close(),
      () => ws.cleanup(),
      () => stopAll(processes),
    );
    sim.revokeKey('biz-1');
    const config = ws.writeConfig(runConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, every: '1s' }));
    processes.push(spawnRun(config));
    const url = await processes[0]!.url;
    const read = async (): Promise<StatusDocument> => (await (await fetch(`${url}/status`)).json()) as StatusDocument;
    const biz1 = async () => (await read()).businesses.find((b) => b.name === 'biz-1');
    const callsOf = async (): Promise<StreamDocument | undefined> => (await biz1())?.streams.find((s) => s.stream === 'calls');
    const failed = await waitFor('biz-1 to be stopped', async () => {
      const biz = await biz1();
      return biz?.failed != null && biz.streams.find((s) => s.stream === 'calls')?.state === 'auth_failed' ? biz : undefined;
    });
    expect(failed.failed).toMatch(/^auth: .*401/);
    expect(failed.streams.find((s) => s.stream === 'calls')?.lastError).toMatch(/401/);
    await waitFor('biz-2 to be mirrored', () => (countRows(ws.dbPath, 'calls') >= 200 ? true : undefined));
    const diffs = summarizeDiffs(diffSqliteAgainstSimulator(ws.dbPath, sim));
    for (const stream of ['calls', 'voicemails', 'numbers']) expect(diffs[`biz-2/${stream}`]).toBe(EXACT_MIRROR);

    // A stopped business's jobs send nothing: rejected requests (only biz-1's key is revoked) stay put over several runs.
    const before = sim.counters().unauthenticated;
    // Each scheduled run of a stopped business rewrites its status without a request; wait for three.
    for (let run = 0; run < 3; run += 1) {
      const since = (await callsOf())?.updatedAt;
      await waitFor('another scheduled run', async () => ((await callsOf())?.updatedAt !== since ? true : undefined), 10_000, 300);
    }
    expect((await callsOf())?.state).toBe('auth_failed');
    expect(sim.counters().unauthenticated).toBe(before);

    const resume = spawnRun(config, ['resume', 'biz-1']);
    expect((await resume.exited).code).toBe(0);
    expect(resume.stdout()).toBe('business biz-1 resumed\n');
    // Lifted: the next scheduled run asks upstream again, and the key, still revoked, stops the business again.
    await waitFor('biz-1 to send a request again', () => (sim.counters().unauthenticated > before ? true : undefined));
    const again = await waitFor('biz-1 to be stopped again', async () => {
      const biz = await biz1();
      return biz?.failed != null && biz.streams.find((s) => s.stream === 'calls')?.state === 'auth_failed' ? biz : undefined;
    });
    expect(again.failed).toMatch(/^auth: .*401/);
  });
});
