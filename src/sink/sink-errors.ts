import { describeThrown } from '../http/index.js';
import type { SinkDescription, SinkFailureExplanation } from './sink.js';

/** Thrown by any operation on a sink after `close()`; a programming or shutdown-order error, never retried. */
export class SinkClosedError extends Error {
  override readonly name = 'SinkClosedError';
  readonly code = 'SINK_CLOSED';

  constructor(type: string, operation: string) {
    super(`${type} sink is already closed: cannot ${operation}`);
  }
}

/** Thrown when a batch breaks the write contract (wrong business, oversized); the engine has a bug. */
export class InvalidBatchError extends Error {
  override readonly name = 'InvalidBatchError';
  readonly code = 'SINK_INVALID_BATCH';
}

/**
 * A sink's service failed under a run in a way the operator fixes (it cannot be reached, its disk
 * is full): said as the connector explains it, naming the sink's config key. `kind` begins the
 * stream failure's message (`unreachable: …`), and `fix` is the line the CLI prints under it.
 */
export class SinkUnavailableError extends Error {
  override readonly name = 'SinkUnavailableError';
  readonly code = 'SINK_UNAVAILABLE';
  readonly kind: SinkFailureExplanation['cause'];
  readonly fix: string;

  constructor(explanation: SinkFailureExplanation, cause: unknown) {
    super(explanation.what, { cause });
    this.kind = explanation.cause;
    this.fix = explanation.fix;
  }
}

/** Every `code` along the `cause` chain (Node, undici and the drivers alike), outermost first. */
export function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 6; depth += 1) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string') codes.push(code);
    current = cause;
  }
  return codes;
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

/**
 * A service that could not be reached (refused, reset, timed out, no such host), said for the
 * operator: `where` names the config key and its value. Undefined for any other failure.
 */
export function explainUnreachable(error: unknown, where: Pick<SinkDescription, 'key' | 'service' | 'shown'>): SinkFailureExplanation | undefined {
  const thrown = describeThrown(error);
  if (thrown.kind !== 'network' && thrown.kind !== 'timeout') return undefined;
  const why = NETWORK_WORDS[thrown.code ?? thrown.label] ?? thrown.label;
  return {
    what: `cannot reach ${where.service} at ${where.shown} (${where.key}): ${why}`,
    fix: `start ${where.service} there, or correct ${where.key}`,
    cause: 'unreachable',
  };
}

/** A database connection that ended under a run (the server stopped, restarted or crashed), as the operator's two lines. */
export function explainConnectionLost(at: string, where: Pick<SinkDescription, 'key' | 'service'>): SinkFailureExplanation {
  return {
    what: `${at}: the connection was lost (the server stopped, restarted or crashed)`,
    fix: `start ${where.service} there, or correct ${where.key}`,
    cause: 'unreachable',
  };
}
