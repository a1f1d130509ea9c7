import type { Batch, Checkpoint, CheckpointStore, DeadLetterStore, SinkCapabilities, StreamTable, WriteResult } from '../src/sink.js';

/**
 * What a connector implements: only its own I/O. The managed wrapper (`managed-sink.ts`) turns it
 * into a {@link import('../src/sink.js').Sink} and owns lifecycle, guards and logging.
 */
export interface SinkConnector {
  /** Connector type as in config (`sqlite`, `postgres`, …); used in logs and errors. */
  readonly type: string;
  /** Flags the connector declares; the rest take their defaults. */
  readonly capabilities?: Partial<SinkCapabilities>;
  readonly checkpoints: CheckpointStore;
  readonly deadLetters: DeadLetterStore;
  /** Runs migrations and creates the given tables; the wrapper calls it for tables not yet prepared. */
  prepare(tables: readonly StreamTable[]): Promise<void>;
  /** Stores one already validated batch; the wrapper guarantees its tables were prepared. */
  write(batch: Batch, checkpoint: Checkpoint): Promise<WriteResult>;
  ping(): Promise<void>;
  /** Called once, after in-flight operations settle. */
  close(): Promise<void>;
}
