import type { SinkDescription, SinkFailureExplanation } from '../../src/sink/sink.js';
import { errorCodes, explainUnreachable } from '../../src/sink/sink-errors.js';

/**
 * The server's exception as the operator reads it. ClickHouse answers a failed request with
 * `Code: 193, e.displayText() = DB::Exception: …` (18.x) or `Code: 193. DB::Exception: … (WRONG_PASSWORD)`
 * (current); the client parses only the second form, so both are read here, by the number.
 */
class ClickHouseServerError extends Error {
  override readonly name = 'ClickHouseServerError';
  /** `CLICKHOUSE_<number>`, the server's exception code, e.g. `CLICKHOUSE_81` (unknown database). */
  readonly code: string;
  /** The server's exception code as a number. */
  readonly serverCode: number;

  constructor(serverCode: number, message: string, cause: unknown) {
    super(message, { cause });
    this.serverCode = serverCode;
    this.code = `CLICKHOUSE_${serverCode}`;
  }
}

const SERVER_CODE =
  /^Code: (\d+)[.,]\s*(?:e\.displayText\(\) = )?(?:DB::Exception: )?([^\n]*?)(?:, e\.what\(\) = DB::Exception)?\s*(?:\(version [^)]*\))?\s*$/m;

/** A failure of the client as a {@link ClickHouseServerError} when the server answered with an exception; anything else as it came. */
export function serverError(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof ClickHouseServerError) return error;
  const match = SERVER_CODE.exec(error.message);
  if (match === null) return error;
  return new ClickHouseServerError(Number(match[1]), `ClickHouse: ${(match[2] ?? '').trim()} (code ${match[1]})`, error);
}

/** Codes of rejected credentials: 192 unknown user, 193 wrong password (18.x), 516 authentication failed (current). */
const CREDENTIALS = new Set(['CLICKHOUSE_192', 'CLICKHOUSE_193', 'CLICKHOUSE_516']);
/** 497 access denied, 164 read-only user: the user may not create or write the tables. */
const PERMISSION = new Set(['CLICKHOUSE_497', 'CLICKHOUSE_164']);
/** 243 not enough space. */
const DISK_FULL = 'CLICKHOUSE_243';
/** 81 unknown database: dropped under a running sink (it is created on start). */
const UNKNOWN_DATABASE = 'CLICKHOUSE_81';

/** ClickHouse's exception codes an operator can fix: rejected credentials, missing rights, a full disk, a database gone. */
export function explainClickHouseFailure(codes: readonly string[], sink: SinkDescription): SinkFailureExplanation | undefined {
  const at = `${sink.service} at ${sink.shown} (${sink.key})`;
  if (codes.some((code) => CREDENTIALS.has(code))) {
    return {
      what: `${at}: the user or password was rejected`,
      fix: `correct the user and password in ${sink.key} (given before its host)`,
      cause: 'unreachable',
    };
  }
  if (codes.some((code) => PERMISSION.has(code))) {
    return {
      what: `${at}: the user may not create or write the tables`,
      fix: 'grant the user CREATE DATABASE, CREATE TABLE, ALTER, INSERT and SELECT there (readonly = 0), or use a user that has them',
      cause: 'unreachable',
    };
  }
  if (codes.includes(UNKNOWN_DATABASE)) {
    return { what: `${at}: the database is gone`, fix: 'run again: the sink creates it on start (or correct sink.database)', cause: 'unreachable' };
  }
  if (codes.includes(DISK_FULL)) {
    return { what: `${at}: the server's disk is full`, fix: 'free space on the ClickHouse server; then run again (it resumes)', cause: 'filesystem' };
  }
  return undefined;
}

/** A failure under a run, read as the operator's two lines when they can fix it; undefined for anything else. */
export function explainClickHouseError(error: unknown, sink: SinkDescription): SinkFailureExplanation | undefined {
  return explainClickHouseFailure(errorCodes(error), sink) ?? explainUnreachable(error, sink);
}
