import type { Reply } from './responder.js';
import type { RouteResult } from './state.js';

/** The ordinary v1 error body: `{ "error": { "code": "<status>", "message": ... } }`. */
export function ordinaryError(status: number, message: string): string {
  return JSON.stringify({ error: { code: String(status), message } });
}

/** The session-style error body: `{ "error": "<message>" }`. */
export function sessionError(message: string): string {
  return JSON.stringify({ error: message });
}

/**
 * API-key responses wrap the payload in `data` unless the path is a legacy one; session
 * responses always carry the payload at top level and errors as a bare string.
 */
export function envelope(result: RouteResult, session: boolean, legacy: boolean, headers: Record<string, string>): Reply {
  if ('error' in result) {
    const body = session ? sessionError(result.error) : ordinaryError(result.status, result.error);
    return { status: result.status, body, headers };
  }
  const body = session || legacy ? result.payload : `{"data":${result.payload}}`;
  return { status: result.status, body, headers };
}
