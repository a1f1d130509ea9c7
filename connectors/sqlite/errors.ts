import type { SinkDescription, SinkFailureExplanation } from '../../src/sink/sink.js';

/** better-sqlite3's codes an operator can fix: a file it cannot open or write, a full disk. */
export function explainSqliteFailure(codes: readonly string[], sink: SinkDescription): SinkFailureExplanation | undefined {
  const has = (...wanted: string[]): boolean => codes.some((code) => wanted.includes(code));
  if (has('SQLITE_CANTOPEN', 'SQLITE_READONLY')) {
    return {
      what: `${sink.key} ${sink.shown}: cannot write there (permission denied or a read-only file system)`,
      fix: `let the user running callsync write there, or set ${sink.key} to another path`,
      cause: 'filesystem',
    };
  }
  if (has('SQLITE_FULL')) {
    const at = `${sink.service} at ${sink.shown} (${sink.key})`;
    return {
      what: `${at}: the disk is full`,
      fix: `free space on that disk, or move ${sink.key} to another one; then run again (it resumes)`,
      cause: 'filesystem',
    };
  }
  return undefined;
}
