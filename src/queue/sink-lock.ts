import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { Redis } from 'ioredis';
import { acquireStreamLock, RELEASE_LUA, type StreamLock } from './stream-lock.js';

/** Who syncs a business × stream into a sink, as the process that finds the lock taken says it. */
export interface LockHolder {
  readonly host: string;
  readonly pid: number;
  /** `backfill` or `run`. */
  readonly command: string;
  /** ISO time the lock was taken. */
  readonly since: string;
}

/**
 * The sink as a lock name: the database file, the Postgres database and schema, the receiver,
 * never a credential. Two configs writing the same place get the same name.
 */
export function sinkIdentity(sink: { readonly type: string } & Readonly<Record<string, unknown>>): string {
  const at = (url: string): string => {
    try {
      const parsed = new URL(url);
      return `${parsed.host}${parsed.pathname}`;
    } catch {
      return '';
    }
  };
  const where = typeof sink.path === 'string' ? resolve(sink.path) : typeof sink.url === 'string' ? at(sink.url) : typeof sink.baseUrl === 'string' ? at(sink.baseUrl) : '';
  return `${sink.type}:${where}${typeof sink.schema === 'string' ? `#${sink.schema}` : ''}`;
}

/** `{prefix}:lock:{sink hash}:{business}:{stream}`: one writer per sink × business × stream, whatever the command. */
export function sinkLockKey(prefix: string, sink: string, business: string, stream: string): string {
  const id = createHash('sha256').update(sink).digest('hex').slice(0, 16);
  return `${prefix}:lock:${id}:${encodeURIComponent(business)}:${encodeURIComponent(stream)}`;
}

export function describeHolder(holder: LockHolder): string {
  return `callsync ${holder.command} (pid ${holder.pid} on ${holder.host}, since ${holder.since})`;
}

function parseHolder(value: string | null): LockHolder | undefined {
  if (value === null) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<LockHolder>;
    return typeof parsed.host === 'string' && typeof parsed.pid === 'number' && typeof parsed.command === 'string' && typeof parsed.since === 'string'
      ? { host: parsed.host, pid: parsed.pid, command: parsed.command, since: parsed.since }
      : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

export type SinkLockResult = { readonly lock: StreamLock } | { readonly lock?: undefined; readonly holder: LockHolder | undefined };

/**
 * Takes the lock, its value naming this holder. A holder on this host whose process is gone
 * (killed with SIGKILL) is taken over at once instead of waiting out its expiry.
 */
export async function acquireSinkLock(options: {
  readonly redis: Redis;
  readonly key: string;
  readonly ttlMs: number;
  readonly command: string;
  readonly onLost: () => void;
}): Promise<SinkLockResult> {
  const me: LockHolder & { id: string } = { id: randomUUID(), host: hostname(), pid: process.pid, command: options.command, since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const lock = await acquireStreamLock({ redis: options.redis, key: options.key, ttlMs: options.ttlMs, onLost: options.onLost, token: JSON.stringify(me) });
    if (lock !== undefined) return { lock };
    const value = await options.redis.get(options.key);
    const holder = parseHolder(value);
    if (holder === undefined || holder.host !== me.host || alive(holder.pid)) return { holder };
    await options.redis.eval(RELEASE_LUA, 1, options.key, value ?? '');
  }
  return { holder: parseHolder(await options.redis.get(options.key)) };
}
