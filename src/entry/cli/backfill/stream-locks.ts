import type { CallsyncConfig } from '../../../config/index.js';
import { configKeySpace, connectRedis, describeTarget } from '../../../base/redis/index.js';
import { describeSink } from '../../../../connectors/registry.js';
import { describeHolder, sinkLockKey, StreamLeases } from '../../../engine/lease/stream-lease.js';
import type { BusinessPlan } from '../../../engine/sync/business-plan.js';
import { EXIT, OperatorError } from '../failure/exit-codes.js';
import { showUrl } from '../failure/explain.js';

interface StreamLocksOptions {
  readonly config: CallsyncConfig;
  readonly plans: readonly BusinessPlan[];
  /** Wait for a held lock instead of exiting. */
  readonly wait: boolean;
  readonly signal: AbortSignal;
  /** A lock lost while syncing (Redis away past its expiry): the backfill stops after the page in flight. */
  readonly onLost: () => void;
  readonly say: (line: string) => void;
}

/**
 * Takes the lock of every planned business × stream in this sink, the same locks `run` takes, so
 * two processes never fetch the same stream twice. Without Redis there is no lock: said once, and
 * the backfill goes on (it stays usable on a machine with only a SQLite file).
 * @throws OperatorError (exit 5) naming the holder when a lock is taken and `wait` is false
 */
export async function lockStreams(options: StreamLocksOptions): Promise<{ release(): Promise<void> }> {
  const { config } = options;
  const redis = connectRedis(config.redis, { lazyConnect: true, maxRetriesPerRequest: 1, reconnect: false, connectTimeoutMs: 2_000, offlineQueue: false });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch {
    redis.disconnect();
    const { key, value } = describeTarget(config.redis);
    options.say(
      `warning: no stream lock: cannot reach Redis at ${key === 'redis.url' ? showUrl(value) : value} (${key}); another backfill or run could sync the same streams`,
    );
    return { release: () => Promise.resolve() };
  }
  const sink = describeSink(config.sink).lockName;
  const keys = configKeySpace(config);
  const leases = new StreamLeases({ redis, ttlMs: config.worker.lockDurationMs, command: 'backfill', onLost: options.onLost });
  const release = async (): Promise<void> => {
    await leases.release().catch(() => undefined);
    redis.disconnect();
  };
  try {
    // One round trip per business: its streams' keys share a slot under Redis Cluster.
    for (const plan of options.plans) {
      const names = new Map(plan.streams.map((stream) => [sinkLockKey(keys, sink, plan.name, stream.name), `${plan.name}/${stream.name}`]));
      await takeAll(leases, names, options);
    }
  } catch (error) {
    await release();
    throw error;
  }
  return { release };
}

async function takeAll(leases: StreamLeases, names: ReadonlyMap<string, string>, options: StreamLocksOptions): Promise<void> {
  const said = new Set<string>();
  let wanted = [...names.keys()];
  for (;;) {
    const busy = await leases.take(wanted);
    if (busy.size === 0) return;
    for (const [key, holder] of busy) {
      const name = names.get(key) ?? key;
      const who = holder === undefined ? 'another process' : describeHolder(holder);
      if (!options.wait) {
        throw new OperatorError(`${name} is being synced into this sink by ${who}\nfix: wait for it to finish, or run again with --wait`, EXIT.locked);
      }
      if (!said.has(key)) options.say(`waiting: ${name} is being synced into this sink by ${who}`);
      said.add(key);
    }
    wanted = [...busy.keys()];
    options.signal.throwIfAborted();
    await new Promise((done) => setTimeout(done, 1_000));
  }
}
