import { Cluster, Redis } from 'ioredis';

/** A connection to a single Redis or to a Redis Cluster; both speak every command callsync sends. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: the config's `redis` section, exactly one of `url` and `cluster` set. */
export interface RedisTarget {
  readonly url?: string | undefined;
  /** Seed nodes (`host:port`) of a Redis Cluster; the client learns the others from them. */
  readonly cluster?: readonly string[] | undefined;
}

/** How a connection behaves when Redis is away; the same meaning for a single Redis and a cluster. */
interface ConnectOptions {
  /** Connect on the first command (or `connect()`) rather than at once. @defaultValue false */
  readonly lazyConnect?: boolean;
  /** Reconnections a command waits through before it fails; `null` waits forever (BullMQ's blocking connections need that). @defaultValue 20 */
  readonly maxRetriesPerRequest?: number | null;
  /** Reconnect after a lost or refused connection. @defaultValue true */
  readonly reconnect?: boolean;
  /** @defaultValue 10,000 */
  readonly connectTimeoutMs?: number;
  /** Queue commands sent while disconnected instead of failing them at once. @defaultValue true */
  readonly offlineQueue?: boolean;
}

function node(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
}

/**
 * The one place callsync opens a Redis connection: an ioredis `Cluster` when `redis.cluster` is
 * set, else a plain connection to `redis.url`. Never with ioredis `keyPrefix` (BullMQ refuses it;
 * key names come from the key space instead).
 */
export function connectRedis(target: RedisTarget, options: ConnectOptions = {}): RedisClient {
  const noRetry = options.reconnect === false ? { retryStrategy: () => null } : {};
  const common = {
    lazyConnect: options.lazyConnect ?? false,
    ...(options.offlineQueue === undefined ? {} : { enableOfflineQueue: options.offlineQueue }),
  };
  const perNode = {
    ...(options.maxRetriesPerRequest === undefined ? {} : { maxRetriesPerRequest: options.maxRetriesPerRequest }),
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeout: options.connectTimeoutMs }),
  };
  if (target.cluster !== undefined) {
    return new Cluster(target.cluster.map(node), {
      ...common,
      ...(options.reconnect === false ? { clusterRetryStrategy: () => null } : {}),
      redisOptions: { ...perNode, ...noRetry },
    });
  }
  if (target.url === undefined) throw new Error('redis: expected redis.url or redis.cluster');
  return new Redis(target.url, { ...common, ...perNode, ...noRetry });
}

/** What an operator reads for the target: the URL, or the cluster's seed nodes. */
export function describeTarget(target: RedisTarget): { readonly key: 'redis.url' | 'redis.cluster'; readonly value: string } {
  return target.cluster !== undefined ? { key: 'redis.cluster', value: target.cluster.join(', ') } : { key: 'redis.url', value: target.url ?? '' };
}
