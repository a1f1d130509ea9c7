import type { RedisClient } from '../../base/redis/index.js';
import type { DeliveryOutcome } from './receiver.js';

/** The last delivery a business received, for the status page. */
interface LastDelivery {
  readonly atMs: number;
  readonly outcome: DeliveryOutcome;
}

/** One write per business and outcome at most this often: a flood of refusals must not become a flood of Redis writes. */
const WRITE_EVERY_MS = 1_000;

/**
 * The last delivery per business, in one Redis hash shared by every replica
 * (`{redis.prefix}:hooks:deliveries`, field = business, value = `outcome atMs`).
 */
export class DeliveryLog {
  readonly #redis: RedisClient;
  readonly #key: string;
  readonly #written = new Map<string, number>();

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#key = `${prefix}:hooks:deliveries`;
  }

  /** Records a delivery to a configured business; never throws (the status page is not worth a failed delivery). */
  record(business: string, outcome: DeliveryOutcome, atMs: number): void {
    const slot = `${business}\n${outcome}`;
    const last = this.#written.get(slot);
    if (last !== undefined && atMs - last < WRITE_EVERY_MS) return;
    this.#written.set(slot, atMs);
    this.#redis.hset(this.#key, business, `${outcome} ${atMs}`).catch(() => undefined);
  }

  /** Every business's last delivery. */
  async read(): Promise<ReadonlyMap<string, LastDelivery>> {
    const all = await this.#redis.hgetall(this.#key);
    const out = new Map<string, LastDelivery>();
    for (const [business, value] of Object.entries(all)) {
      const [outcome, at] = value.split(' ');
      if (outcome !== undefined && at !== undefined) out.set(business, { outcome: outcome as DeliveryOutcome, atMs: Number(at) });
    }
    return out;
  }
}

/**
 * Signed deliveries already accepted, one Redis key each for a while
 * (`{redis.prefix}:hooks:seen:{business}:{digest}`, `SET NX PX`), shared by every replica: a
 * delivery sent again within its timestamp's tolerance is a replay, answered without a sync.
 */
export class SeenDeliveries {
  readonly #redis: RedisClient;
  readonly #prefix: string;

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#prefix = `${prefix}:hooks:seen:`;
  }

  /** True when no delivery of `business` with this digest was seen within `ttlMs`; marks it seen. */
  async first(business: string, digest: string, ttlMs: number): Promise<boolean> {
    return (await this.#redis.set(`${this.#prefix}${encodeURIComponent(business)}:${digest}`, '1', 'PX', ttlMs, 'NX')) === 'OK';
  }
}
