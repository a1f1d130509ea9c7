import type { SinkDescription, SinkFailureExplanation } from '../../src/sink/sink.js';

/**
 * DuckDB's errors carry no code, only a message that starts with its kind (`IO Error: …`). The
 * driver wraps the ones an operator or the write path acts on in {@link DuckDbError}, whose `code`
 * the shared failure reading (`errorCodes`) and {@link explainDuckDbFailure} see.
 */
type DuckDbErrorCode = 'DUCKDB_LOCKED' | 'DUCKDB_CANNOT_OPEN' | 'DUCKDB_DISK_FULL' | 'DUCKDB_VALUE_REFUSED';

/** A DuckDB failure with a stable code; the DuckDB error is its `cause` and its message is DuckDB's. */
export class DuckDbError extends Error {
  override readonly name = 'DuckDbError';
  readonly code: DuckDbErrorCode;

  constructor(code: DuckDbErrorCode, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.code = code;
  }
}

/** What DuckDB says when another process holds the file (a POSIX lock). */
const LOCKED = /Could not set lock on file .*Conflicting lock is held in /s;
const CANNOT_OPEN = /Cannot open (database )?file|Permission denied|Read-only file system|Is a directory|Not a directory/;
const DISK_FULL = /No space left on device|Disk quota exceeded/;

/** The code of a DuckDB failure an operator can fix, if it is one. */
function classify(error: unknown): DuckDbErrorCode | undefined {
  if (!(error instanceof Error) || error instanceof DuckDbError) return undefined;
  if (LOCKED.test(error.message)) return 'DUCKDB_LOCKED';
  if (DISK_FULL.test(error.message)) return 'DUCKDB_DISK_FULL';
  if (CANNOT_OPEN.test(error.message)) return 'DUCKDB_CANNOT_OPEN';
  return undefined;
}

/** `error` wrapped in a {@link DuckDbError} when it is a failure an operator fixes; else unchanged. */
export function duckDbFailure(error: unknown): unknown {
  const code = classify(error);
  return code === undefined ? error : new DuckDbError(code, error);
}

/** DuckDB's failures an operator can fix: the file held by another process, a path it cannot write, a full disk. */
export function explainDuckDbFailure(codes: readonly string[], sink: SinkDescription): SinkFailureExplanation | undefined {
  const has = (wanted: DuckDbErrorCode): boolean => codes.includes(wanted);
  if (has('DUCKDB_LOCKED')) {
    return {
      what: `${sink.key} ${sink.shown}: another process holds this DuckDB file (DuckDB lets one process open a file at a time)`,
      fix: `stop the other callsync using it (run only one replica, and no backfill beside a run), or set ${sink.key} to another file`,
      cause: 'filesystem',
    };
  }
  if (has('DUCKDB_CANNOT_OPEN')) {
    return {
      what: `${sink.key} ${sink.shown}: cannot open or write there (permission denied, a read-only file system, or not a file)`,
      fix: `let the user running callsync write there, or set ${sink.key} to another path`,
      cause: 'filesystem',
    };
  }
  if (has('DUCKDB_DISK_FULL')) {
    return {
      what: `${sink.service} at ${sink.shown} (${sink.key}): the disk is full`,
      fix: `free space on that disk, or move ${sink.key} to another one; then run again (it resumes)`,
      cause: 'filesystem',
    };
  }
  return undefined;
}
