import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { asKeySpace, type KeySpace, type RedisClient } from '../../base/redis/index.js';
import { clearLease, LeaseGroup } from './lease.js';
import { holderRuns, ownStart } from './process-identity.js';

/** Who syncs a business × stream into a sink, as the process that finds the lease taken says it. */
export interface LockHolder {
  readonly host: string;
  readonly pid: number;
  /** `backfill` or `run`. */
  readonly command: string;
  /** ISO time the lease was taken. */
  readonly since: string;
  /**
   * When the holder's process started (`/proc/<pid>/stat` field 22, or `ps`'s `lstart`), so a
   * pid another process has been given since is not taken for the holder. Absent where it
   * could not be read, and in values written before it was recorded.
   */
  readonly start?: string;
}

/**
 * `{base}:lock:{sink hash}:{business}:{stream}`: one writer per sink × business × stream, whatever
 * the command; `base` is the prefix, or the business's shard hash tag in a tagged key space, so
 * a business's leases share a slot under Redis Cluster. `sink` is the lock name its connector gives
 * it (`describeSink(config).lockName`).
 */
export function sinkLockKey(keys: KeySpace | string, sink: string, business: string, stream: string): string {
  const id = createHash('sha256').update(sink).digest('hex').slice(0, 16);
  return `${asKeySpace(keys).base(business)}:lock:${id}:${encodeURIComponent(business)}:${encodeURIComponent(stream)}`;
}

export function describeHolder(holder: LockHolder): string {
  return `callsync ${holder.command} (pid ${holder.pid} on ${holder.host}, since ${holder.since})`;
}

function parseHolder(value: string | undefined): LockHolder | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<LockHolder>;
    if (typeof parsed.host !== 'string' || typeof parsed.pid !== 'number' || typeof parsed.command !== 'string' || typeof parsed.since !== 'string')
      return undefined;
    const holder = { host: parsed.host, pid: parsed.pid, command: parsed.command, since: parsed.since };
    return typeof parsed.start === 'string' ? { ...holder, start: parsed.start } : holder;
  } catch {
    return undefined;
  }
}

/** The leases of one process's streams, each stream's value naming this holder. */
export class StreamLeases {
  readonly #redis: RedisClient;
  readonly #group: LeaseGroup;
  readonly #host = hostname();

  constructor(options: { readonly redis: RedisClient; readonly ttlMs: number; readonly command: string; readonly onLost: (key: string) => void }) {
    const start = ownStart();
    const me: LockHolder & { readonly id: string } = {
      id: randomUUID(),
      host: this.#host,
      pid: process.pid,
      command: options.command,
      since: new Date().toISOString(),
      ...(start === undefined ? {} : { start }),
    };
    this.#redis = options.redis;
    this.#group = new LeaseGroup({ redis: options.redis, ttlMs: options.ttlMs, onLost: options.onLost, token: JSON.stringify(me) });
  }

  /**
   * Takes every free key of `keys` in one round trip (under Redis Cluster, keys of one business).
   * A holder on this host whose process is gone (killed with SIGKILL, a zombie not yet reaped, or
   * its pid now another process's) is taken over at once instead of waiting out its expiry.
   * @returns the keys another process has, with its holder when its value could be read
   */
  async take(keys: readonly string[]): Promise<Map<string, LockHolder | undefined>> {
    const busy = await this.#group.take(keys);
    const dead = [...busy].filter(([, value]) => {
      const holder = parseHolder(value);
      return holder !== undefined && holder.host === this.#host && !holderRuns(holder.pid, holder.start);
    });
    if (dead.length > 0) {
      await Promise.all(dead.map(([key, value]) => clearLease(this.#redis, key, value ?? '')));
      const still = await this.#group.take(dead.map(([key]) => key));
      for (const [key] of dead) if (!still.has(key)) busy.delete(key);
      for (const [key, value] of still) busy.set(key, value);
    }
    return new Map([...busy].map(([key, value]) => [key, parseHolder(value)]));
  }

  /** Keys this process has now. */
  get held(): readonly string[] {
    return this.#group.held;
  }

  /** Frees `keys` (every held one when omitted) in one round trip. Safe to call twice. */
  release(keys?: readonly string[]): Promise<void> {
    return this.#group.release(keys);
  }
}
