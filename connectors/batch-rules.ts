import type { Batch, JsonObject, SyncRecord } from '../src/sink.js';
import { InvalidBatchError } from './sink-errors.js';

/**
 * Rejects oversized batches, batches that would store one business's or stream's rows under
 * another, and a whole checkpoint passed where its position belongs (an object literal of
 * {@link import('../src/sink.js').Checkpoint} type-checks as JSON, and would be stored as the position).
 */
export function assertValidBatch(batch: Batch, position: JsonObject, maxBatchSize: number): void {
  if ('recordsSynced' in position && 'position' in position && 'businessId' in position) {
    throw new InvalidBatchError('write takes the next checkpoint position, not a whole checkpoint: pass checkpoint.position');
  }
  if (batch.records.length > maxBatchSize) {
    throw new InvalidBatchError(`batch of ${batch.records.length} records exceeds maxBatchSize ${maxBatchSize}`);
  }
  const foreign = batch.records.find((record) => record.businessId !== batch.businessId);
  if (foreign !== undefined) {
    throw new InvalidBatchError(`record ${foreign.id} of business ${foreign.businessId} in a batch of ${batch.businessId}`);
  }
  const foreignLetter = batch.deadLetters.find((letter) => letter.businessId !== batch.businessId || letter.stream !== batch.table.stream);
  if (foreignLetter !== undefined) {
    throw new InvalidBatchError(`dead letter of ${foreignLetter.businessId}/${foreignLetter.stream} in a batch of ${batch.businessId}/${batch.table.stream}`);
  }
}

/**
 * One record per id, the later copy winning: a page can repeat an id (an overlap, an update in
 * flight) and targets refuse one statement or request touching a key twice. The one place where
 * repeated ids are collapsed, for every connector.
 */
export function lastPerId(records: readonly SyncRecord[]): readonly SyncRecord[] {
  const byId = new Map<string, SyncRecord>();
  for (const record of records) {
    byId.delete(record.id);
    byId.set(record.id, record);
  }
  return byId.size === records.length ? records : [...byId.values()];
}
