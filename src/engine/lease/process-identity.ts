import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Whether a lease holder's process still runs. `process.kill(pid, 0)` alone cannot tell: it
 * succeeds for a zombie its parent has not reaped yet and for a pid another process has been
 * given since. So a holder records when its process started, and a process counts as the holder
 * only while it runs (not a zombie) with that same start.
 */

const PROC = '/proc';

interface Seen {
  /** `Z` (zombie) or `X` (dead) means the process has ended; anything else runs. */
  readonly state: string;
  /** The process's start, prefixed by how it was read, so only like values are compared. */
  readonly start: string;
}

/**
 * `/proc/<pid>/stat`: `pid (comm) state …`, where comm may hold spaces and parentheses, so the
 * fields are counted after its last `)`; field 3 is the state, field 22 the start in clock ticks
 * since boot. `null`: no such process; `undefined`: no process table to read.
 */
function fromProc(pid: number, proc: string): Seen | null | undefined {
  let text: string;
  try {
    text = readFileSync(`${proc}/${pid}/stat`, 'latin1');
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') return undefined;
    // A missing entry means a gone process only where the table itself is there.
    try {
      readFileSync(`${proc}/self/stat`);
      return null;
    } catch {
      return undefined;
    }
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const ticks = fields[19];
  return state === undefined || ticks === undefined ? undefined : { state, start: `proc:${ticks}` };
}

/** `ps` where there is no `/proc` (macOS, the BSDs): `stat` and `lstart` are in both their and procps' `ps`. */
function fromPs(pid: number): Seen | null | undefined {
  let text: string;
  try {
    text = execFileSync('ps', ['-o', 'stat=', '-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (error) {
    // ps exits 1 when no process has the pid; spawning it can also fail (no ps at all).
    return (error as { status?: unknown }).status === 1 ? null : undefined;
  }
  const match = /^\s*(\S+)\s+(.+?)\s*$/.exec(text);
  return match === null ? null : { state: match[1] ?? '', start: `ps:${match[2] ?? ''}` };
}

function seen(pid: number, proc: string): Seen | null | undefined {
  const read = fromProc(pid, proc);
  return read === undefined && proc === PROC ? fromPs(pid) : read;
}

let own: string | undefined | null = null;

/** This process's start as {@link holderRuns} compares it; read once. Undefined where it cannot be read. */
export function ownStart(): string | undefined {
  if (own === null) own = seen(process.pid, PROC)?.start;
  return own;
}

/**
 * Whether the process `pid` runs and, when `start` is given, is the one that started then.
 * Where neither `/proc` nor `ps` can say, a signal 0 decides. `proc` is the process table's
 * root, another only in tests.
 */
export function holderRuns(pid: number, start: string | undefined, proc = PROC): boolean {
  const found = seen(pid, proc);
  if (found === null) return false;
  if (found === undefined) return signalReaches(pid);
  if (found.state.startsWith('Z') || found.state.startsWith('X')) return false;
  // A start read another way (the holder's host had no /proc, or its record has none) cannot be compared.
  return start === undefined || start.split(':')[0] !== found.start.split(':')[0] || start === found.start;
}

function signalReaches(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}
