import { createHash } from 'node:crypto';
import type { SyncRecord } from '../../src/sink/sink.js';
import { canonicalJson } from '../../src/normalize/index.js';

/**
 * A key that depends only on the business, the stream and each record's id and raw upstream
 * content: a replayed identical batch carries the same key (receivers drop it), while any change
 * to a record's content gives a new key. Record order and `synced_at` do not count, and raw JSON
 * is compared by content, not key order. A record coming back after a `deleted` event (`revived`)
 * changes the key too, or a receiver would drop the batch as seen and keep the record deleted.
 */
export function idempotencyKey(businessId: string, stream: string, records: readonly SyncRecord[], revived: ReadonlySet<string> = new Set()): string {
  const entries = records
    .map((record): [string, ...string[]] =>
      revived.has(record.id) ? [record.id, canonicalJson(record.raw), 'revived'] : [record.id, canonicalJson(record.raw)],
    )
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash('sha256')
    .update(JSON.stringify([businessId, stream, entries]))
    .digest('hex');
  return `cs1_${hash}`;
}

/**
 * The key of one `deleted` event (the same on its retries): a later event for the same ids, after
 * they came back, must not be dropped as seen.
 */
export function deletionIdempotencyKey(businessId: string, stream: string, ids: readonly string[], batchId: string): string {
  const sorted = [...ids].sort();
  return `cs1_${createHash('sha256')
    .update(JSON.stringify(['deleted', businessId, stream, sorted, batchId]))
    .digest('hex')}`;
}
