import type { Batch, SyncRecord } from '../src/sink.js';

/**
 * One record per id, the later copy winning: a page can repeat an id (an overlap, an update in
 * flight) and targets refuse one statement or request touching a key twice. Done once here for
 * every connector.
 */
export function lastPerId(batch: Batch): Batch {
  const byId = new Map<string, SyncRecord>();
  for (const record of batch.records) {
    byId.delete(record.id);
    byId.set(record.id, record);
  }
  return byId.size === batch.records.length ? batch : { ...batch, records: [...byId.values()] };
}
