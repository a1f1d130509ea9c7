import type { DeadLetter, RecordSource, SyncRecord } from '../sink.js';
import type { WalkItem } from './walkers/index.js';

export interface PageRecords {
  readonly records: SyncRecord[];
  readonly deadLetters: DeadLetter[];
}

/**
 * Splits a page into records and dead letters, in page order. A repeated id is kept as it came:
 * the sink collapses repeats (the later copy wins) for every connector.
 */
export function toPageRecords(
  businessId: string,
  stream: string,
  source: RecordSource,
  items: readonly WalkItem[],
): PageRecords {
  const records: SyncRecord[] = [];
  const deadLetters: DeadLetter[] = [];
  for (const { raw, result } of items) {
    if (result.ok) records.push({ businessId, id: result.id, source, fields: result.fields, raw });
    else deadLetters.push({ businessId, stream, reason: result.reason, raw });
  }
  return { records, deadLetters };
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (items.length === 0) return [[]];
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}
