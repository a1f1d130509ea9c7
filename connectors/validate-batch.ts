import type { Batch, Checkpoint } from '../src/sink.js';
import { InvalidBatchError } from './sink-errors.js';

/** Rejects oversized batches and batches that would store one business's rows or checkpoint under another. */
export function assertValidBatch(batch: Batch, checkpoint: Checkpoint, maxBatchSize: number): void {
  if (batch.records.length > maxBatchSize) {
    throw new InvalidBatchError(`batch of ${batch.records.length} records exceeds maxBatchSize ${maxBatchSize}`);
  }
  if (checkpoint.businessId !== batch.businessId || checkpoint.stream !== batch.table.stream) {
    throw new InvalidBatchError(
      `checkpoint for ${checkpoint.businessId}/${checkpoint.stream} does not match batch ${batch.businessId}/${batch.table.stream}`,
    );
  }
  const foreign = batch.records.find((record) => record.businessId !== batch.businessId);
  if (foreign !== undefined) {
    throw new InvalidBatchError(`record ${foreign.id} of business ${foreign.businessId} in a batch of ${batch.businessId}`);
  }
  const foreignLetter = [...batch.deadLetters].find(
    (letter) => letter.businessId !== batch.businessId || letter.stream !== batch.table.stream,
  );
  if (foreignLetter !== undefined) {
    throw new InvalidBatchError(`dead letter of ${foreignLetter.businessId}/${foreignLetter.stream} in a batch of ${batch.businessId}/${batch.table.stream}`);
  }
}
