import { startSimulator, type Simulator, type SimulatorOptions } from '../../../src/simulator/index.js';
import { diffSqliteAgainstSimulator } from '../support/sqlite-mirror.js';
import { runConfig, spawnRun, stopAll, waitFor, workspace, type RunProcess } from '../worker/harness.js';
import { countRows } from '../worker/measures.js';
import { RedisCluster } from './redis-cluster.js';

/** The rate budget of every simulated business, and of callsync's limiter for it. */
export const BUDGET = { limit: 20, windowMs: 1000 };

/** A three-master Redis Cluster, a simulator and two `callsync run` workers over it. */
export interface ClusterDeployment {
  readonly cluster: RedisCluster;
  readonly sim: Simulator;
  readonly ws: ReturnType<typeof workspace>;
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
  cleanup: Array<() => Promise<void>>,
): Promise<ClusterDeployment> {
  const cluster = new RedisCluster(3);
  cleanup.push(() => cluster.stop());
  await cluster.start();
  const sim = await startSimulator({ ...simulator, rateLimit: BUDGET });
  const ws = workspace(label);
  const processes: RunProcess[] = [];
  cleanup.push(
    () => sim.close(),
    () => ws.cleanup(),
    () => stopAll(processes),
  );
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
  const expected = sim.businesses.reduce((sum, b) => sum + sim.truth(b.name).calls.length, 0);
  await waitFor('every call stored', () => (countRows(ws.dbPath, 'calls') >= expected ? true : undefined), 120_000, 500);
  await waitFor(
    'the mirror to equal the truth',
    () => {
      const diffs = Object.values(diffSqliteAgainstSimulator(ws.dbPath, sim));
      return diffs.every((d) => d.missing.length + d.unexpected.length + d.different.length === 0) ? true : undefined;
    },
    60_000,
    1000,
  );
  return expected;
}
