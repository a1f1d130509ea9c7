import type { Batch, ColumnValue, Json, RecordSource } from '../../src/sink.js';
import { idempotencyKey } from './idempotency-key.js';

/** One record as the receiver sees it: the normalized columns flattened beside the reserved keys. */
export interface WebhookRecord {
  readonly id: string;
  readonly source: RecordSource;
  readonly raw: Json;
  readonly synced_at: string;
  readonly [field: string]: ColumnValue | Json;
}

/** The JSON body of one POST. */
export interface WebhookPayload {
  readonly business_id: string;
  readonly stream: string;
  readonly records: readonly WebhookRecord[];
  /** Identifies this delivery (the same on every retry of one write) for receivers' logs. */
  readonly batch_id: string;
}

export interface PreparedDelivery {
  readonly payload: WebhookPayload;
  /** The serialized payload; signed and sent byte for byte, the same on every retry. */
  readonly body: string;
  readonly idempotencyKey: string;
}

const reservedKeys = new Set(['id', 'source', 'raw', 'synced_at']);

/**
 * Builds the body of one POST (the managed sink has left one record per id). A normalized field named like a reserved key is left out so it
 * cannot shadow the record's identity; it is still in `raw`.
 */
export function buildDelivery(batch: Batch, batchId: string, syncedAt: string): PreparedDelivery {
  const records = batch.records.map((record): WebhookRecord => {
    const fields = Object.fromEntries(Object.entries(record.fields).filter(([key]) => !reservedKeys.has(key)));
    return { id: record.id, source: record.source, ...fields, raw: record.raw, synced_at: syncedAt };
  });
  const payload: WebhookPayload = { business_id: batch.businessId, stream: batch.table.stream, records, batch_id: batchId };
  return {
    payload,
    body: JSON.stringify(payload),
    idempotencyKey: idempotencyKey(batch.businessId, batch.table.stream, batch.records),
  };
}

export { isoSeconds } from '../../src/normalize/index.js';
