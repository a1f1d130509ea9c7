import { describe, expect, it } from 'vitest';
import { keySpace } from '../../../src/base/redis/index.js';
import type { StatusSnapshot } from '../../../src/engine/state/index.js';
import { runCli } from '../support/cli-process.js';
import { diffSqliteAgainstSimulator, EXACT_MIRROR, summarizeDiffs } from '../support/sqlite-mirror.js';
import { stopAll, waitFor } from '../worker/harness.js';
import { countRows } from '../worker/measures.js';
import { BUDGET, startClusterDeployment, waitForExactMirror } from './cluster-deployment.js';
import { streamRuns } from './writers.js';
import { cleanupSteps } from '../support/cleanup-steps.js';

const SHARDS = 6;
const STREAMS = ['calls', 'voicemails', 'numbers'];

describe('callsync run over a real Redis Cluster (three masters), two workers, six queue shards', () => {
  const cleanup = cleanupSteps();

  it('syncs every business exactly, one budget and one writer per stream across both workers, shards on several masters', async () => {
    const deployment = await startClusterDeployment('cluster', { businesses: 6, calls: 400, voicemails: 30, numbers: 4 }, () => ({ shards: SHARDS }), cleanup);
    const { cluster, sim, ws, processes } = deployment;
    const expected = await waitForExactMirror(deployment);
    // New records while both workers poll: each picks up jobs of every shard.
    for (const b of sim.businesses) sim.addCalls(b.name, 20);
    await waitFor('the new calls stored', () => (countRows(ws.dbPath, 'calls') >= expected + 20 * sim.businesses.length ? true : undefined), 60_000, 500);
    await waitFor(
      'both workers to have synced streams',
      () => (processes.every((p) => p.logs.some((l) => l.msg === 'sync done')) ? true : undefined),
      30_000,
      500,
    );

    const keys = await cluster.keys(`{${ws.prefix}:*`);
    const mastersWithKeys = new Set<number>();
    for (const key of keys) mastersWithKeys.add(await cluster.masterOfSlot(await cluster.keySlot(key)));
    const shardMasters = new Set<number>();
    for (let shard = 0; shard < SHARDS; shard += 1)
      shardMasters.add(await cluster.masterOfSlot(await cluster.keySlot(`{${ws.prefix}:${shard}}:bull:sync:meta`)));
    const running = processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null).length;
    await stopAll(processes);

    expect(running).toBe(2);
    expect(summarizeDiffs(diffSqliteAgainstSimulator(ws.dbPath, sim))).toEqual(
      Object.fromEntries(sim.businesses.flatMap((b) => STREAMS.map((s) => [`${b.name}/${s}`, EXACT_MIRROR]))),
    );
    const counters = sim.counters();
    for (const b of sim.businesses) {
      expect(counters.businesses[b.name]?.rateLimited, b.name).toBe(0);
      expect(counters.businesses[b.name]?.maxWindowCount, b.name).toBeLessThanOrEqual(BUDGET.limit);
    }
    const { runs, overlaps } = streamRuns(processes);
    expect(overlaps).toEqual([]);
    expect(new Set([...runs.values()].flat().map((run) => run.worker))).toEqual(new Set([0, 1]));
    // Every key is tagged: nothing of this deployment lives outside its shards' hash tags.
    expect(keys.every((key) => /^\{[^}]+:\d+\}:/.test(key))).toBe(true);
    expect(keys.some((key) => key.includes(':bull:sync:'))).toBe(true);
    expect(keys.some((key) => key.includes(':status:stream:'))).toBe(true);
    expect(shardMasters.size).toBeGreaterThanOrEqual(2);
    expect(mastersWithKeys.size).toBeGreaterThanOrEqual(2);
  });

  it('splits the shards between two workers with queue.consume: each runs only its shards, together every business; status reads every shard', async () => {
    const halves = [
      [0, 1, 2],
      [3, 4, 5],
    ];
    const deployment = await startClusterDeployment(
      'cluster-consume',
      { businesses: 6, calls: 100, voicemails: 10, numbers: 2 },
      (i) => ({ shards: SHARDS, consume: halves[i] }),
      cleanup,
    );
    const { sim, ws, processes, configs } = deployment;
    await waitForExactMirror(deployment);
    const status = JSON.parse((await runCli(['status', '--config', configs[0]!, '--json'])).stdout) as StatusSnapshot;
    await stopAll(processes);

    const space = keySpace({ prefix: ws.prefix, shards: SHARDS });
    const ranBy = processes.map((p) => new Set(p.logs.filter((l) => l.msg === 'sync done').map((l) => String(l.business))));
    ranBy.forEach((businesses, i) => {
      expect(businesses.size, `worker ${i} synced nothing`).toBeGreaterThan(0);
      for (const business of businesses)
        expect(halves[i], `${business} (shard ${space.shardOf(business)}) ran on worker ${i}`).toContain(space.shardOf(business));
    });
    expect(new Set([...ranBy[0]!, ...ranBy[1]!])).toEqual(new Set(sim.businesses.map((b) => b.name)));
    expect(status.businesses.map((b) => b.name).sort()).toEqual(sim.businesses.map((b) => b.name).sort());
    expect(status.businesses.every((b) => b.streams.length === STREAMS.length)).toBe(true);
  });
});
