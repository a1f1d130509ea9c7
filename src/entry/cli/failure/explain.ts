import { describeThrown } from '../../../http/network-errors.js';
import { outsideText, redactUrlCredentials, showUrl, type Redact } from '../../../base/redact/index.js';
import { connectorFix, type SinkFailureExplanation } from '../../../sink/sink.js';
import { errorCodes, explainUnreachable, SinkUnavailableError } from '../../../sink/sink-errors.js';
import { EXIT, OperatorError } from './exit-codes.js';

/** What a command was using when it failed, as the operator wrote it in the config. */
export interface Target {
  /** The config key, e.g. `sink.url`, `redis.url`, `upstream.baseUrl`. */
  readonly key: string;
  /** What it is, for the sentence: `PostgreSQL`, `Redis`, `the upstream API`. */
  readonly service: string;
  /** The value without credentials (a URL without user:password, a path). */
  readonly shown: string;
  /** The connector's reading of its own error codes (a sink's driver), asked before the generic one. @defaultValue none */
  readonly explain?: (codes: readonly string[]) => SinkFailureExplanation | undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export { showUrl };

/**
 * Turns what a driver or the OS threw into the operator's two lines: what failed, naming the
 * config key and its target, and the fix. An {@link OperatorError} passes through unchanged.
 */
export function explainFailure(error: unknown, target: Target, redact: Redact = redactUrlCredentials): OperatorError {
  if (error instanceof OperatorError) return error;
  const codes = errorCodes(error);
  const at = `${target.service} at ${target.shown} (${target.key})`;
  const say = (what: string, fix: string, code: OperatorError['exitCode']): OperatorError => new OperatorError(`${what}\nfix: ${fix}`, code, { cause: error });
  const has = (...wanted: string[]): boolean => codes.some((code) => wanted.includes(code));

  // The connector already wrote the operator's two lines (which key, which choice).
  if (has('ENDPOINT_CHANGED') && error instanceof Error) return new OperatorError(error.message, EXIT.config, { cause: error });
  // The sink already explained a failure under way, naming its key.
  const own = error instanceof SinkUnavailableError ? { what: error.message, fix: error.fix, cause: error.kind } : target.explain?.(codes);
  if (own !== undefined) return say(own.what, own.fix, own.cause === 'filesystem' ? EXIT.filesystem : EXIT.unreachable);
  if (has('EADDRINUSE', 'EADDRNOTAVAIL'))
    return say(`${at}: the address is in use or not available`, `stop what listens there, or change ${target.key}`, EXIT.unreachable);
  if (has('ENOTDIR', 'EEXIST')) {
    return say(
      `${target.key} ${target.shown}: a parent of this path is a file, not a directory`,
      `set ${target.key} to a path inside a directory`,
      EXIT.filesystem,
    );
  }
  if (has('EACCES', 'EPERM', 'EROFS')) {
    return say(
      `${target.key} ${target.shown}: cannot write there (permission denied or a read-only file system)`,
      `let the user running callsync write there, or set ${target.key} to another path`,
      EXIT.filesystem,
    );
  }
  if (has('ENOSPC', 'EDQUOT')) {
    return say(`${at}: the disk is full`, `free space on that disk, or move ${target.key} to another one; then run again (it resumes)`, EXIT.filesystem);
  }
  const unreachable = explainUnreachable(error, target);
  if (unreachable !== undefined) return say(unreachable.what, unreachable.fix, EXIT.unreachable);
  const thrown = describeThrown(error);
  if (thrown.kind === 'tls') return say(`${at}: TLS failed (${thrown.label})`, `fix the certificate, or correct ${target.key}`, EXIT.unreachable);
  const text = outsideText(messageOf(error), redact, 300).split('\n')[0] ?? '';
  return say(`${at}: ${text}`, connectorFix(error) ?? 'run again with --verbose to see where it failed', EXIT.failed);
}

/** Runs `work`, turning what it throws into the operator's message about `target`. */
export async function using<T>(target: Target, work: () => Promise<T>, redact?: Redact): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw explainFailure(error, target, redact);
  }
}
