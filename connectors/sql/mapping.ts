import { createHash } from 'node:crypto';
import type { DeadLetter, StreamTable, SyncRecord } from '../../src/sink/sink.js';
import { jsonText } from '../../src/sink/json-text.js';

// A record as a row of its stream table, a dead letter as a row of `dead_letters`: what the statements bind.

/** Column order of a record row, matching the parameters `StatementCache.runUpsert` (statements.ts) binds. */
export function recordColumns(table: StreamTable): string[] {
  return ['business_id', 'id', 'source', ...table.columns.map((column) => column.name), 'raw', 'synced_at'];
}

/**
 * Row after row in {@link recordColumns} order (VALUES lists, `runEach`). Indexed loops into
 * presized arrays: `for…of` here allocated an iterator result per value.
 */
export function rowValues(table: StreamTable, records: readonly SyncRecord[], now: string, rawTexts: readonly string[] | undefined): unknown[][] {
  const names = table.columns.map((column) => column.name);
  const rows = new Array<unknown[]>(records.length);
  for (let index = 0; index < records.length; index++) {
    const record = records[index] as SyncRecord;
    const row = new Array<unknown>(names.length + 5);
    row[0] = record.businessId;
    row[1] = record.id;
    row[2] = record.source;
    for (let column = 0; column < names.length; column++) row[column + 3] = record.fields[names[column] as string] ?? null;
    row[names.length + 3] = rawTexts?.[index] ?? JSON.stringify(record.raw);
    row[names.length + 4] = now;
    rows[index] = row;
  }
  return rows;
}

/** One array per column, matching `unnest`. */
export function columnValues(table: StreamTable, records: readonly SyncRecord[], now: string, rawTexts: readonly string[] | undefined): unknown[][] {
  const fields = table.columns.map((column) => records.map((record) => record.fields[column.name] ?? null));
  return [
    records.map((record) => record.businessId),
    records.map((record) => record.id),
    records.map((record) => record.source),
    ...fields,
    records.map((record, index) => rawTexts?.[index] ?? JSON.stringify(record.raw)),
    records.map(() => now),
  ];
}

export function deadLetterParameters(letter: DeadLetter, now: string): unknown[] {
  const raw = jsonText(letter.raw);
  // The same bad record of the same business and stream gets the same fingerprint, so a repeat bumps `attempts`.
  const fingerprint = createHash('sha256')
    .update(`[${JSON.stringify(letter.businessId)},${JSON.stringify(letter.stream)},${raw}]`)
    .digest('hex');
  // Postgres text cannot hold U+0000; the reason may quote the very value that was refused.
  const reason = letter.reason.replaceAll('\u0000', '\\u0000');
  return [letter.businessId, letter.stream, reason, raw, fingerprint, now, now];
}
