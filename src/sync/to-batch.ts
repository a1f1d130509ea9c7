import type { DeadLetter, RecordSource, SyncRecord } from '../sink.js';
import type { WalkItem } from './walkers/index.js';

export interface PageRecords {
  readonly records: SyncRecord[];
  readonly deadLetters: DeadLetter[];
}

/**
 * Splits a page into records and dead letters. An id seen twice in one page keeps its last
 * version: upserts must not touch one row twice in a statement, and the later copy is the newer.
 */
export function toPageRecords(
  businessId: string,
  stream: string,
  source: RecordSource,
  items: readonly WalkItem[],
): PageRecords {
  const byId = new Map<string, SyncRecord>();
  const deadLetters: DeadLetter[] = [];
  for (const { raw, result } of items) {
    if (result.ok) {
      byId.delete(result.id);
      byId.set(result.id, { businessId, id: result.id, source, fields: result.fields, raw });
    } else {
      deadLetters.push({ businessId, stream, reason: result.reason, raw });
    }
  }
  return { records: [...byId.values()], deadLetters };
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (items.length === 0) return [[]];
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}
