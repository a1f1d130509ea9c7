import type { Batch, ColumnValue, Json, RecordSource } from '../../src/sink/sink.js';
import { deletionIdempotencyKey, idempotencyKey } from './idempotency-key.js';

/** One record as the receiver sees it: the normalized columns flattened beside the reserved keys. */
interface WebhookRecord {
  readonly id: string;
  readonly source: RecordSource;
  readonly raw: Json;
  readonly synced_at: string;
  readonly [field: string]: ColumnValue | Json;
}

/** The JSON body of one POST. */
interface WebhookPayload {
  readonly business_id: string;
  readonly stream: string;
  /** Records to store; empty in a `deleted` event, so a receiver that ignores `event` changes nothing. */
  readonly records: readonly WebhookRecord[];
  /** Identifies this delivery (the same on every retry of one write) for receivers' logs. */
  readonly batch_id: string;
  /** Present only on deletions: `deleted`. */
  readonly event?: 'deleted';
  /** The records upstream no longer lists, by id: mark them deleted (the sink never hard-deletes). */
  readonly deleted?: readonly { readonly id: string; readonly deleted_at: string }[];
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
export function buildDelivery(batch: Batch, batchId: string, syncedAt: string, revived: ReadonlySet<string> = new Set()): PreparedDelivery {
  const records = batch.records.map((record): WebhookRecord => {
    const fields = Object.fromEntries(Object.entries(record.fields).filter(([key]) => !reservedKeys.has(key)));
    return { id: record.id, source: record.source, ...fields, raw: record.raw, synced_at: syncedAt };
  });
  const payload: WebhookPayload = { business_id: batch.businessId, stream: batch.table.stream, records, batch_id: batchId };
  return {
    payload,
    body: JSON.stringify(payload),
    idempotencyKey: idempotencyKey(batch.businessId, batch.table.stream, batch.records, revived),
  };
}

/** Builds a `deleted` event for records upstream no longer lists; its key names this event (the same on its retries). */
export function buildDeletion(businessId: string, stream: string, ids: readonly string[], batchId: string, deletedAt: string): PreparedDelivery {
  const payload: WebhookPayload = {
    business_id: businessId,
    stream,
    records: [],
    batch_id: batchId,
    event: 'deleted',
    deleted: ids.map((id) => ({ id, deleted_at: deletedAt })),
  };
  return { payload, body: JSON.stringify(payload), idempotencyKey: deletionIdempotencyKey(businessId, stream, ids, batchId) };
}
