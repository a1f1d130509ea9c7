import { createHash } from 'node:crypto';
import { keySpace, type KeySpace, type RedisClient } from '../../base/redis/index.js';
import { canonicalJson } from '../../normalize/index.js';
import { businessResumed } from './run-end.js';
import type { StatusStore } from './status-store.js';

/** SHA-256 of the business's config section (secrets included, so a rotated key counts as a change). */
export function businessConfigHash(business: unknown): string {
  return createHash('sha256').update(canonicalJson(business)).digest('hex');
}

interface FailedBusinessesOptions {
  readonly redis: RedisClient;
  readonly statusStore: StatusStore;
  /** The deployment's Redis prefix; the config hashes live in `{prefix}:queue:failed-config`. */
  readonly prefix: string;
  /** Where the keys live when sharded or on a Redis Cluster (one hash per shard, under its hash tag). @defaultValue one untagged shard under `prefix` */
  readonly keys?: KeySpace;
}

/**
 * The status store keeps the failure mark and its reason; this adapter adds the config hash the
 * mark was taken under (the store has no field for it), so a changed config lifts the mark.
 */
export class FailedBusinesses {
  readonly #redis: RedisClient;
  readonly #store: StatusStore;
  readonly #keys: KeySpace;

  constructor(options: FailedBusinessesOptions) {
    this.#redis = options.redis;
    this.#store = options.statusStore;
    this.#keys = options.keys ?? keySpace({ prefix: options.prefix });
  }

  #hashKey(business: string): string {
    return `${this.#keys.base(business)}:queue:failed-config`;
  }

  async mark(business: string, reason: string, configHash: string): Promise<void> {
    await this.#redis.hset(this.#hashKey(business), business, configHash);
    await this.#store.markBusinessFailed(business, reason);
  }

  /** The reason the business is stopped, or undefined when it is not. */
  async reason(business: string): Promise<string | undefined> {
    return this.#store.failedReason(business);
  }

  /** @returns whether the business was marked. */
  async clear(business: string): Promise<boolean> {
    const wasFailed = (await this.reason(business)) !== undefined;
    await this.#store.clearBusinessFailed(business);
    await this.#redis.hdel(this.#hashKey(business), business);
    return wasFailed;
  }

  /**
   * An operator's `callsync resume`: lifts the mark and shows the business's stopped streams as
   * idle until their next run.
   * @returns whether the business was marked.
   */
  async resume(business: string): Promise<boolean> {
    const wasFailed = await this.clear(business);
    for (const status of await this.#store.list()) {
      if (status.business === business && status.state === 'auth_failed') await this.#store.update(business, status.stream, businessResumed);
    }
    return wasFailed;
  }

  /**
   * At start: lifts every mark whose business's config changed since (or that left the config).
   * @param hashes current config hash of every configured business
   * @returns the businesses whose mark was lifted
   */
  async reconcile(hashes: ReadonlyMap<string, string>): Promise<string[]> {
    const failed = Object.keys(await this.#store.failedBusinesses());
    const stored: Record<string, string> = {};
    for (let shard = 0; shard < this.#keys.shards; shard += 1)
      Object.assign(stored, await this.#redis.hgetall(`${this.#keys.shardBase(shard)}:queue:failed-config`));
    const lifted: string[] = [];
    for (const business of failed) {
      if (hashes.get(business) === stored[business]) continue;
      await this.clear(business);
      lifted.push(business);
    }
    return lifted;
  }
}
