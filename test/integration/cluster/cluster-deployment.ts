import type { SimulatorOptions } from '../../../simulator/index.js';
import type { CleanupSteps } from '../support/cleanup-steps.js';
import { runConfig, spawnRun, startFleet, waitForMirror, type Fleet, type RunProcess } from '../worker/harness.js';
import { RedisCluster } from './redis-cluster.js';

/** The rate budget of every simulated business, and of callsync's limiter for it. */
export const BUDGET = { limit: 20, windowMs: 1000 };

/** A three-master Redis Cluster, a simulator and two `callsync run` workers over it. */
export interface ClusterDeployment extends Fleet {
  readonly cluster: RedisCluster;
  /** The two workers, in the order of their configs. */
  readonly processes: RunProcess[];
  /** Each worker's config file. */
  readonly configs: string[];
}

/**
 * Starts a {@link ClusterDeployment}; `queueFor(i)` is worker i's `queue` section. Each part's stop
 * goes onto `cleanup` as soon as it exists, so a failed start leaves nothing running.
 */
export async function startClusterDeployment(
  label: string,
  simulator: Pick<SimulatorOptions, 'businesses' | 'calls' | 'voicemails' | 'numbers'>,
  queueFor: (worker: number) => Record<string, unknown>,
  cleanup: CleanupSteps,
): Promise<ClusterDeployment> {
  const cluster = new RedisCluster(3);
  cleanup.push(() => cluster.stop());
  await cluster.start();
  const { sim, ws, processes } = await startFleet(label, { ...simulator, rateLimit: BUDGET }, cleanup);
  const base = runConfig(sim, {
    prefix: ws.prefix,
    dbPath: ws.dbPath,
    every: '2s',
    pageSize: 20,
    rateLimit: { requests: BUDGET.limit, perMs: BUDGET.windowMs },
  });
  const configs = [0, 1].map((i) => ws.writeConfig({ ...base, redis: { cluster: cluster.nodes, prefix: ws.prefix }, queue: queueFor(i) }, `worker-${i}.json`));
  processes.push(...configs.map((config) => spawnRun(config)));
  await Promise.all(processes.map((p) => p.url));
  return { cluster, sim, ws, processes, configs };
}

/** Waits until every call upstream is stored and the mirror equals the simulator's truth; answers the call count. */
export async function waitForExactMirror({ sim, ws }: ClusterDeployment): Promise<number> {
  return waitForMirror(ws.dbPath, sim, 120_000, 60_000);
}
