import { Redis } from 'ioredis';
import type { CallsyncConfig } from '../../config/index.js';
import { acquireSinkLock, describeHolder, sinkIdentity, sinkLockKey } from '../../queue/sink-lock.js';
import type { StreamLock } from '../../queue/stream-lock.js';
import type { BusinessPlan } from '../../sync/business-plan.js';
import { EXIT, OperatorError } from '../failure/exit-codes.js';
import { showUrl } from '../failure/explain.js';

export interface StreamLocksOptions {
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
  const redis = new Redis(config.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 2_000, enableOfflineQueue: false });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch {
    redis.disconnect();
    options.say(`warning: no stream lock: cannot reach Redis at ${showUrl(config.redis.url)} (redis.url); another backfill or run could sync the same streams`);
    return { release: () => Promise.resolve() };
  }
  const sink = sinkIdentity(config.sink);
  const held: StreamLock[] = [];
  const release = async (): Promise<void> => {
    await Promise.all(held.splice(0).map((lock) => lock.release().catch(() => undefined)));
    redis.disconnect();
  };
  try {
    for (const plan of options.plans) {
      for (const stream of plan.streams) {
        held.push(await takeOne(redis, sinkLockKey(config.redis.prefix, sink, plan.name, stream.name), `${plan.name}/${stream.name}`, options));
      }
    }
  } catch (error) {
    await release();
    throw error;
  }
  return { release };
}

async function takeOne(redis: Redis, key: string, name: string, options: StreamLocksOptions): Promise<StreamLock> {
  let said = false;
  for (;;) {
    const result = await acquireSinkLock({ redis, key, ttlMs: options.config.worker.lockDurationMs, command: 'backfill', onLost: options.onLost });
    if (result.lock !== undefined) return result.lock;
    const who = result.holder === undefined ? 'another process' : describeHolder(result.holder);
    if (!options.wait) {
      throw new OperatorError(`${name} is being synced into this sink by ${who}\nfix: wait for it to finish, or run again with --wait`, EXIT.locked);
    }
    if (!said) options.say(`waiting: ${name} is being synced into this sink by ${who}`);
    said = true;
    options.signal.throwIfAborted();
    await new Promise((done) => setTimeout(done, 1_000));
  }
}
