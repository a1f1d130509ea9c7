import type { SinkDescription, SinkFailureExplanation } from '../../src/sink/sink.js';
import { errorCodes, explainConnectionLost, explainUnreachable } from '../../src/sink/sink-errors.js';

/**
 * pg's own errors for a connection that ended under it, which carry no code: the socket closed
 * (a server crash, a restart, a proxy gone) mid-query, or a later query on that client.
 */
const CONNECTION_LOST = /^Connection terminated|^Client has encountered a connection error|^Client was closed and is not queryable/;

/** PostgreSQL's SQLSTATE codes an operator can fix: a missing database, rejected credentials, no CREATE right, a full disk. */
export function explainPostgresFailure(codes: readonly string[], sink: SinkDescription): SinkFailureExplanation | undefined {
  const has = (...wanted: string[]): boolean => codes.some((code) => wanted.includes(code));
  const at = `${sink.service} at ${sink.shown} (${sink.key})`;
  if (has('3D000')) {
    const name = sink.shown.split('/').pop() ?? '';
    return { what: `${at}: database "${name}" does not exist`, fix: `create it (createdb ${name}) or correct ${sink.key}`, cause: 'unreachable' };
  }
  if (has('28P01', '28000')) return { what: `${at}: the user or password was rejected`, fix: `correct the credentials in ${sink.key}`, cause: 'unreachable' };
  if (has('42501')) {
    return {
      what: `${at}: permission denied to create the schema or its tables`,
      fix: 'grant the user CREATE on the database, or use a user that has it',
      cause: 'unreachable',
    };
  }
  // 57P01-57P03: the server is shutting down, crashed or is starting; class 08: the connection failed.
  if (has('57P01', '57P02', '57P03') || codes.some((code) => code.startsWith('08'))) return explainConnectionLost(at, sink);
  if (has('53100')) {
    return {
      what: `${at}: the disk is full`,
      fix: `free space on that disk, or move ${sink.key} to another one; then run again (it resumes)`,
      cause: 'filesystem',
    };
  }
  return undefined;
}

/**
 * A failure under a run, read as the operator's two lines when they can fix it: the server's
 * codes, a connection pg saw end, or one that could not be made. Undefined for anything else.
 */
export function explainPostgresError(error: unknown, sink: SinkDescription): SinkFailureExplanation | undefined {
  const own = explainPostgresFailure(errorCodes(error), sink);
  if (own !== undefined) return own;
  if (error instanceof Error && CONNECTION_LOST.test(error.message)) return explainConnectionLost(`${sink.service} at ${sink.shown} (${sink.key})`, sink);
  return explainUnreachable(error, sink);
}
