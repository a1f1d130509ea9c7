import { afterAll, describe, expect, it } from 'vitest';
import { RedisCluster } from '../integration/cluster/redis-cluster.js';
import { expectExact, figuresOf } from './support/figures.js';
import { recordRow } from './support/results.js';
import { collectLogs, spawnRun, startChaosFleet, stopAll, upstreamCalls, waitFor, waitForExactSqlite } from './support/run-harness.js';
import { SecretScanner } from './support/secret-scanner.js';
import { countRows } from './support/sqlite-figures.js';
import { cleanupSteps } from '../integration/support/cleanup-steps.js';

const SHARDS = 3;
const scanner = new SecretScanner();
const cleanup = cleanupSteps(afterAll);

describe('scenario 19: a Redis Cluster master SIGKILLed in the middle of a `run` backfill', () => {
  it('fails over to its replica, the master comes back as a replica, and the sink ends exact', async () => {
    const cluster = new RedisCluster(3, 1);
    cleanup.push(() => cluster.stop());
    await cluster.start();
    const upstream = { businesses: 3, calls: 4_000, voicemails: 40, numbers: 4, seed: 1919, rateLimit: { limit: 15, windowMs: 1000 } };
    const { sim: simulator, ws, processes, config } = await startChaosFleet('chaos-cluster', upstream, scanner, cleanup);
    const configPath = ws.writeConfig({ ...config, redis: { cluster: cluster.nodes, prefix: ws.prefix }, queue: { shards: SHARDS } });
    processes.push(spawnRun(configPath), spawnRun(configPath));
    await Promise.all(processes.map((p) => p.url));
    const expected = upstreamCalls(simulator);
    await waitFor('a third of the calls stored', () => (countRows(ws.dbPath, 'calls') >= expected / 3 ? true : undefined), 90_000, 100);

    // The master of the shard that holds the first business: its queue, leases, budget and status go down with it.
    const victim = await cluster.masterOfSlot(await cluster.keySlot(`{${ws.prefix}:0}`));
    const storedAtKill = countRows(ws.dbPath, 'calls');
    await cluster.kill(victim);
    await waitFor(
      'a replica to take over the killed master',
      async () => {
        const nodes = await cluster.clusterNodes();
        return nodes.some((n) => n.port === victim && n.failed) && (await cluster.masterOfSlot(await cluster.keySlot(`{${ws.prefix}:0}`))) !== victim
          ? true
          : undefined;
      },
      60_000,
      250,
    );
    await cluster.waitHealthy();
    await cluster.startNode(victim);
    await cluster.waitHealthy();

    await waitFor('every call stored', () => (countRows(ws.dbPath, 'calls') >= expected ? true : undefined), 180_000, 500);
    const diffs = await waitForExactSqlite(ws.dbPath, simulator, 60_000);
    const running = processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null).length;
    await scanner.collectHttp('worker', await processes[0]!.url);
    await stopAll(processes);
    collectLogs(scanner, 'cluster-master-kill', processes);
    scanner.collectSqlite('sink', ws.dbPath);
    const counters = simulator.counters();
    const rateLimited = simulator.businesses.reduce((sum, b) => sum + (counters.businesses[b.name]?.rateLimited ?? 0), 0);
    recordRow({
      scenario: '19 Redis Cluster master SIGKILLed mid-run (3 masters + 3 replicas, 3 queue shards, 2 workers): failed over, restarted as a replica',
      faults: { masterKill: 1 },
      restarts: 1,
      ...figuresOf(diffs),
      note: `calls ${storedAtKill}/${expected} at the kill; workers not restarted; 429s ${rateLimited}`,
    });
    expect(running, 'a worker died with the master').toBe(2);
    expectExact(diffs);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('cluster-master-kill').leaks).toEqual([]);
  });
});
