import { createHash, randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { once } from 'node:events';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import type { Redis } from 'ioredis';
import { BLOCK_LUA, INSPECT_LUA, OBSERVE_LUA, TAKE_LUA } from '../../src/source/ratelimit/redis-scripts.js';
import { STATUS_FIELDS_LUA, STATUS_READ_LUA } from '../../src/engine/state/redis-status-script.js';

/** What a Redis command was for, by the key it touches (see {@link purposeOfKey}). */
export const PURPOSES = ['queue', 'locks', 'rate limiter', 'status store', 'reconciliation', 'metrics', 'other'] as const;
export type Purpose = (typeof PURPOSES)[number];

export interface PurposeCost {
  /** Commands Redis ran, those inside Lua scripts included. */
  commands: number;
  /** Commands a client sent: a MULTI…EXEC block counts once, a pipeline once per command (an upper bound). */
  roundTrips: number;
  /** Commands by name; `evalsha NAME` for a known script, `lua CMD` for a command inside a script. */
  byCommand: Record<string, number>;
}

export type CostBreakdown = Record<Purpose, PurposeCost>;

/** Redis's own count of every command run (INFO commandstats, Lua's inner commands included), server-wide. */
export async function commandstatsTotal(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  let total = 0;
  for (const match of info.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) total += Number(match[1]);
  return total;
}

/**
 * Which purpose a key of this deployment serves. Everything `run` keeps lives under its prefix:
 * BullMQ's keys (`bull:`), the locks, the limiter's buckets, the status store, the
 * reconciliation claims. Undefined for a key of another deployment (other clients of a shared Redis).
 */
export function purposeOfKey(key: string, prefix: string): Purpose | undefined {
  if (!key.startsWith(`${prefix}:`)) return undefined;
  const rest = key.slice(prefix.length + 1);
  if (rest.startsWith('bull:')) return 'queue';
  if (rest.startsWith('queue:lock:') || rest.startsWith('lock:')) return 'locks';
  if (rest.startsWith('ratelimit:')) return 'rate limiter';
  if (rest.startsWith('status:') || rest.startsWith('queue:failed-config')) return 'status store';
  if (rest.startsWith('reconcile:')) return 'reconciliation';
  return 'other';
}

const SCRIPT_COMMANDS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);
/** Reads a `/metrics` scrape makes; outside a MULTI while the bench scrapes they are the scrape's. */
const READS = new Set(['hgetall', 'smembers', 'hget', 'mget', 'sscan', 'scan']);
/** The status store's read scripts: `list()`'s and the gauges' of a scrape. */
const STATUS_READ_SCRIPTS = new Set(['statusRead', 'statusFields']);

/** sha1 → name of every script the worker loads with EVALSHA: BullMQ's, the limiter's and the status list's. */
async function scriptNames(): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const sha = (lua: string): string => createHash('sha1').update(lua).digest('hex');
  const ours = {
    limiterTake: TAKE_LUA,
    limiterObserve: OBSERVE_LUA,
    limiterBlock: BLOCK_LUA,
    limiterInspect: INSPECT_LUA,
    statusRead: STATUS_READ_LUA,
    statusFields: STATUS_FIELDS_LUA,
  };
  for (const [name, lua] of Object.entries(ours)) names.set(sha(lua), name);
  const dir = join(dirname(fileURLToPath(import.meta.resolve('bullmq'))), 'scripts');
  for (const file of await readdir(dir)) {
    if (!file.endsWith('.js') || file === 'index.js') continue;
    const module = (await import(pathToFileURL(join(dir, file)).href)) as Record<string, { name?: unknown; content?: unknown }>;
    for (const script of Object.values(module))
      if (typeof script.name === 'string' && typeof script.content === 'string') names.set(sha(script.content), script.name);
  }
  return names;
}

function emptyBreakdown(): CostBreakdown {
  return Object.fromEntries(PURPOSES.map((p) => [p, { commands: 0, roundTrips: 0, byCommand: {} }])) as unknown as CostBreakdown;
}

/** The key a command names first, if any (a script's first key). */
function firstKey(name: string, args: readonly string[]): string | undefined {
  if (SCRIPT_COMMANDS.has(name)) return Number(args[2]) > 0 ? args[3] : undefined;
  return args[1];
}

/** A live MONITOR: its lines, a fence, and close. */
export interface Monitor {
  on(event: 'line', listener: (line: string) => void): void;
  /**
   * Resolves once this monitor has read every line of the commands Redis ran before this call:
   * `redis` sends an ECHO with a unique marker, and MONITOR shows commands in the order Redis ran
   * them, so the marker's line comes after theirs. The marker's line goes to no listener.
   */
  fence(redis: Pick<Redis, 'echo'>): Promise<void>;
  close(): void;
}

/**
 * MONITOR on a socket of its own, read line by line (ioredis's `monitor()` lost track of its
 * replies when the first lines came with MONITOR's OK). Resolves once MONITOR is live; each line
 * is a RESP simple string.
 */
export async function openMonitor(redisUrl: string): Promise<Monitor> {
  const url = new URL(redisUrl);
  const socket = connect(Number(url.port || 6379), url.hostname);
  await once(socket, 'connect');
  if (url.password !== '') socket.write(`AUTH ${decodeURIComponent(url.username || 'default')} ${decodeURIComponent(url.password)}\r\n`);
  socket.write('MONITOR\r\n');
  const lines = createInterface({ input: socket, crlfDelay: Infinity });
  // Live once Redis said OK to MONITOR (after AUTH's own OK, when there was one).
  const [first] = (await once(lines, 'line')) as [string];
  if (url.password !== '' && first === '+OK') await once(lines, 'line');
  else if (first !== '+OK') throw new Error(`MONITOR refused: ${first}`);
  const fences = new Map<string, () => void>();
  const isFence = (line: string): boolean => {
    const marker = /"echo" "(callsync-monitor-fence:[0-9a-f-]+)"$/.exec(line)?.[1];
    if (marker === undefined) return false;
    fences.get(marker)?.();
    return true;
  };
  return {
    on: (_event, listener) =>
      void lines.on('line', (line) => {
        if (!isFence(line)) listener(line.startsWith('+') ? line.slice(1) : line);
      }),
    async fence(redis) {
      const marker = `callsync-monitor-fence:${randomUUID()}`;
      const seen = new Promise<void>((resolve) => fences.set(marker, resolve));
      // Read even when no listener is attached (a 'line' listener makes readline flow).
      const watch = (line: string): void => void isFence(line);
      lines.on('line', watch);
      try {
        await redis.echo(marker);
        await seen;
      } finally {
        fences.delete(marker);
        lines.off('line', watch);
      }
    },
    close: () => {
      lines.close();
      socket.destroy();
    },
  };
}

/** `1795543779.057129 [0 127.0.0.1:54944] "evalsha" "…" "1" "key"` → its source and arguments. */
export function parseMonitorLine(line: string): { at: number; source: string; args: string[] } | undefined {
  const head = /^(\d+\.\d+) \[\d+ ([^\]]+)\] /.exec(line);
  if (head === null) return undefined;
  const args = [...line.slice(head[0].length).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? '');
  return { at: Number(head[1]), source: head[2] ?? '', args };
}

export interface RedisCostMeter {
  /** From now until `endScrape` (by Redis's timestamps), reads of status keys outside a MULTI are counted as metrics. */
  beginScrape(): void;
  endScrape(): void;
  /** Stops listening; the breakdown of everything seen since `startRedisCostMeter`. */
  stop(): Promise<CostBreakdown>;
}

/**
 * Counts and attributes every command of one deployment (one key prefix) with MONITOR: a line
 * names its client (`lua` for a command inside a script, which follows the script's own line)
 * and its arguments, so a command is put down to the purpose of its key, a script's inner
 * commands to the script's, and a keyless MULTI/EXEC to the block's. Commands of other
 * deployments on the same Redis are left out, unlike server-wide INFO counters.
 */
export async function startRedisCostMeter(redisUrl: string, prefix: string): Promise<RedisCostMeter> {
  const names = await scriptNames();
  const monitor = await openMonitor(redisUrl);
  const costs = emptyBreakdown();
  // Per client address: whether it is ours (it named a key under the prefix), the purpose of its
  // last keyed command, and the MULTI it has open (counted with the block's first keyed command).
  const clients = new Map<string, { ours: boolean; purpose: Purpose; inMulti: boolean; pendingMulti: number }>();
  let scriptPurpose: Purpose | undefined;
  // Scrapes as [start, end] in seconds; a line is matched by its own timestamp, since it may arrive after the scrape ended.
  const scrapes: [number, number][] = [];
  const scraping = (at: number): boolean => scrapes.some(([start, end]) => at >= start && at <= end);
  const add = (purpose: Purpose, command: string, roundTrip: boolean): void => {
    const cost = costs[purpose];
    cost.commands += 1;
    if (roundTrip) cost.roundTrips += 1;
    cost.byCommand[command] = (cost.byCommand[command] ?? 0) + 1;
  };
  monitor.on('line', (line: string) => {
    const parsed = parseMonitorLine(line);
    if (parsed === undefined) return;
    const { args, source, at } = parsed;
    const name = (args[0] ?? '').toLowerCase();
    if (source === 'lua') {
      if (scriptPurpose !== undefined) add(scriptPurpose, `lua ${name}`, false);
      return;
    }
    const key = firstKey(name, args);
    const keyed = key === undefined ? undefined : purposeOfKey(key, prefix);
    if (SCRIPT_COMMANDS.has(name)) scriptPurpose = keyed;
    if (key !== undefined && keyed === undefined) return;
    let state = clients.get(source);
    if (state === undefined) {
      state = { ours: false, purpose: 'other', inMulti: false, pendingMulti: 0 };
      clients.set(source, state);
    }
    if (name === 'multi') {
      state.inMulti = true;
      state.pendingMulti += 1;
      return;
    }
    if (keyed === undefined) {
      if (!state.ours) return;
    } else {
      state.ours = true;
      for (; state.pendingMulti > 0; state.pendingMulti -= 1) add(keyed, 'multi', false);
    }
    let purpose = keyed ?? state.purpose;
    const read = READS.has(name) || (name === 'evalsha' && STATUS_READ_SCRIPTS.has(names.get(args[1] ?? '') ?? ''));
    if (keyed === 'status store' && !state.inMulti && scraping(at) && read) purpose = 'metrics';
    if (keyed !== undefined) state.purpose = purpose;
    // The status list's script, sent by a scrape, puts its inner reads down to the scrape too.
    if (SCRIPT_COMMANDS.has(name) && keyed !== undefined) scriptPurpose = purpose;
    const label = name === 'evalsha' ? `evalsha ${names.get(args[1] ?? '') ?? 'unknown'}` : name === 'eval' ? 'eval (script text)' : name;
    if (name === 'exec') {
      state.inMulti = false;
      state.pendingMulti = 0;
      add(purpose, label, true);
    } else {
      add(purpose, label, !state.inMulti);
    }
  });
  return {
    beginScrape: () => void scrapes.push([Date.now() / 1000, Number.POSITIVE_INFINITY]),
    endScrape: () => {
      const last = scrapes.at(-1);
      if (last !== undefined) last[1] = Date.now() / 1000;
    },
    stop() {
      monitor.close();
      return Promise.resolve(costs);
    },
  };
}
