import type { SinkDescription, SinkFailureExplanation } from '../../src/sink/sink.js';
import { explainObjectStoreError, explainObjectStoreFailure } from '../object-storage/index.js';

type ParquetSinkErrorCode = 'PARQUET_COLUMN_RESERVED' | 'PARQUET_PARTITION_INVALID' | 'PARQUET_PARTITION_OPEN';

/** A failure of the Parquet sink itself (not of its storage, whose errors are the object store's). */
export class ParquetSinkError extends Error {
  override readonly name = 'ParquetSinkError';
  readonly code: ParquetSinkErrorCode;

  constructor(message: string, code: ParquetSinkErrorCode) {
    super(message);
    this.code = code;
  }
}

/** The `sink:` keys the storage's failures name. */
const SECTION = 'sink.storage';

/** The operator's two lines for a failure carrying its storage's codes (a missing bucket, refused credentials). */
export function explainParquetFailure(codes: readonly string[], sink: SinkDescription): SinkFailureExplanation | undefined {
  return explainObjectStoreFailure(codes, sink, SECTION);
}

/** A failure under a run: the storage's codes, or an endpoint that cannot be reached. */
export function explainParquetError(error: unknown, sink: SinkDescription): SinkFailureExplanation | undefined {
  return explainObjectStoreError(error, sink, SECTION);
}
