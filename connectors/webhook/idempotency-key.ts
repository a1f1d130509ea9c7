import { createHash } from 'node:crypto';
import type { SyncRecord } from '../../src/sink.js';
import { canonicalJson } from '../../src/normalize/index.js';

/**
 * A key that depends only on the business, the stream and each record's id and raw upstream
 * content: a replayed identical batch carries the same key (receivers drop it), while any change
 * to a record's content gives a new key. Record order and `synced_at` do not count, and raw JSON
 * is compared by content, not key order.
 */
export function idempotencyKey(businessId: string, stream: string, records: readonly SyncRecord[]): string {
  const entries = records
    .map((record) => [record.id, canonicalJson(record.raw)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash('sha256').update(JSON.stringify([businessId, stream, entries])).digest('hex');
  return `cs1_${hash}`;
}

/** The key of a `deleted` event: the same ids of one business and stream, in any order, give the same key. */
export function deletionIdempotencyKey(businessId: string, stream: string, ids: readonly string[]): string {
  const sorted = [...ids].sort();
  return `cs1_${createHash('sha256').update(JSON.stringify(['deleted', businessId, stream, sorted])).digest('hex')}`;
}
