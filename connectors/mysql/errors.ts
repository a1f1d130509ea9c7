import type { SinkDescription, SinkFailureExplanation } from '../../src/sink/sink.js';
import { errorCodes, explainConnectionLost, explainUnreachable } from '../../src/sink/sink-errors.js';
import { urlDatabase } from './config.js';

/** mysql2's codes for a connection that ended under it (a server stopped, restarted or killed it). */
const CONNECTION_LOST = ['PROTOCOL_CONNECTION_LOST', 'ER_SERVER_SHUTDOWN', 'ER_NORMAL_SHUTDOWN', 'ER_CONNECTION_KILLED', 'ER_QUERY_INTERRUPTED'];

/** The server's codes (as mysql2 names them) an operator can fix: a missing database, rejected credentials, missing rights, a full disk. */
export function explainMysqlFailure(codes: readonly string[], sink: SinkDescription): SinkFailureExplanation | undefined {
  const has = (...wanted: string[]): boolean => codes.some((code) => wanted.includes(code));
  const at = `${sink.service} at ${sink.shown} (${sink.key})`;
  if (has('ER_BAD_DB_ERROR')) {
    const name = urlDatabase(sink.shown);
    return {
      what: `${at}: database "${name}" does not exist`,
      fix: `create it (create database \`${name}\` character set utf8mb4) or correct ${sink.key}`,
      cause: 'unreachable',
    };
  }
  if (has('ER_ACCESS_DENIED_ERROR', 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR', 'ER_HOST_NOT_PRIVILEGED', 'ER_NOT_SUPPORTED_AUTH_MODE')) {
    return { what: `${at}: the user or password was rejected`, fix: `correct the credentials in ${sink.key}`, cause: 'unreachable' };
  }
  if (has('ER_DBACCESS_DENIED_ERROR', 'ER_TABLEACCESS_DENIED_ERROR', 'ER_SPECIFIC_ACCESS_DENIED_ERROR', 'ER_COLUMNACCESS_DENIED_ERROR')) {
    return {
      what: `${at}: permission denied on the database or its tables`,
      fix: 'grant the user ALL on that database (it creates tables, views and indexes), or use a user that has it',
      cause: 'unreachable',
    };
  }
  if (has('ER_CON_COUNT_ERROR', 'ER_TOO_MANY_USER_CONNECTIONS')) {
    return {
      what: `${at}: the server has too many connections`,
      fix: `raise max_connections there, or lower poolSize in the sink section`,
      cause: 'unreachable',
    };
  }
  if (has(...CONNECTION_LOST)) return explainConnectionLost(at, sink);
  if (has('ER_DISK_FULL', 'ER_RECORD_FILE_FULL', 'ER_OUT_OF_RESOURCES')) {
    return {
      what: `${at}: the disk or the table is full`,
      fix: `free space on the server's disk; then run again (it resumes)`,
      cause: 'filesystem',
    };
  }
  return undefined;
}

/**
 * A failure under a run, read as the operator's two lines when they can fix it: the server's
 * codes, a connection mysql2 saw end, or one that could not be made. Undefined for anything else.
 */
export function explainMysqlError(error: unknown, sink: SinkDescription): SinkFailureExplanation | undefined {
  return explainMysqlFailure(errorCodes(error), sink) ?? explainUnreachable(error, sink);
}
