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
