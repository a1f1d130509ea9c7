import { describeThrown } from '../../http-policy/network-errors.js';
import { outsideText, redactUrlCredentials, type Redact } from '../../redact/index.js';
import { EXIT, OperatorError } from './exit-codes.js';

/** What a command was using when it failed, as the operator wrote it in the config. */
export interface Target {
  /** The config key, e.g. `sink.url`, `redis.url`, `upstream.baseUrl`. */
  readonly key: string;
  /** What it is, for the sentence: `PostgreSQL`, `Redis`, `the upstream API`. */
  readonly service: string;
  /** The value without credentials (a URL without user:password, a path). */
  readonly shown: string;
}

const NETWORK_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
};

/** Every `code` along the `cause` chain (Node, undici, pg and better-sqlite3 codes alike). */
function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 6; depth += 1) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string') codes.push(code);
    current = cause;
  }
  return codes;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A URL as it may be shown: no user, no password, no query string. */
export function showUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return redactUrlCredentials(url);
  }
}

function databaseOf(target: Target): string {
  return target.shown.split('/').pop() ?? '';
}

/**
 * Turns what a driver or the OS threw into the operator's two lines: what failed, naming the
 * config key and its target, and the fix. An {@link OperatorError} passes through unchanged.
 */
export function explainFailure(error: unknown, target: Target, redact: Redact = redactUrlCredentials): OperatorError {
  if (error instanceof OperatorError) return error;
  const codes = codesOf(error);
  const at = `${target.service} at ${target.shown} (${target.key})`;
  const say = (what: string, fix: string, code: OperatorError['exitCode']): OperatorError =>
    new OperatorError(`${what}\nfix: ${fix}`, code, { cause: error });
  const has = (...wanted: string[]): boolean => codes.some((code) => wanted.includes(code));

  // The connector already wrote the operator's two lines (which key, which choice).
  if (has('ENDPOINT_CHANGED') && error instanceof Error) return new OperatorError(error.message, EXIT.config, { cause: error });
  if (has('3D000')) {
    const name = databaseOf(target);
    return say(`${at}: database "${name}" does not exist`, `create it (createdb ${name}) or correct ${target.key}`, EXIT.unreachable);
  }
  if (has('28P01', '28000')) return say(`${at}: the user or password was rejected`, `correct the credentials in ${target.key}`, EXIT.unreachable);
  if (has('42501')) return say(`${at}: permission denied to create the schema or its tables`, `grant the user CREATE on the database, or use a user that has it`, EXIT.unreachable);
  if (has('EADDRINUSE', 'EADDRNOTAVAIL')) return say(`${at}: the address is in use or not available`, `stop what listens there, or change ${target.key}`, EXIT.unreachable);
  if (has('ENOTDIR', 'EEXIST')) {
    return say(`${target.key} ${target.shown}: a parent of this path is a file, not a directory`, `set ${target.key} to a path inside a directory`, EXIT.filesystem);
  }
  if (has('EACCES', 'EPERM', 'EROFS', 'SQLITE_CANTOPEN', 'SQLITE_READONLY')) {
    return say(`${target.key} ${target.shown}: cannot write there (permission denied or a read-only file system)`, `let the user running callsync write there, or set ${target.key} to another path`, EXIT.filesystem);
  }
  if (has('ENOSPC', 'SQLITE_FULL', 'EDQUOT', '53100')) {
    return say(`${at}: the disk is full`, `free space on that disk, or move ${target.key} to another one; then run again (it resumes)`, EXIT.filesystem);
  }
  const thrown = describeThrown(error);
  if (thrown.kind === 'network' || thrown.kind === 'timeout') {
    const why = NETWORK_WORDS[thrown.code ?? thrown.label] ?? thrown.label;
    return say(`cannot reach ${at}: ${why}`, `start ${target.service} there, or correct ${target.key}`, EXIT.unreachable);
  }
  if (thrown.kind === 'tls') return say(`${at}: TLS failed (${thrown.label})`, `fix the certificate, or correct ${target.key}`, EXIT.unreachable);
  const text = outsideText(messageOf(error), redact, 300).split('\n')[0] ?? '';
  return say(`${at}: ${text}`, 'run again with --verbose to see where it failed', EXIT.failed);
}

/** Runs `work`, turning what it throws into the operator's message about `target`. */
export async function using<T>(target: Target, work: () => Promise<T>, redact?: Redact): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw explainFailure(error, target, redact);
  }
}
