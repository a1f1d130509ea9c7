import type { ColumnValue, Json, StreamTable } from '../../../src/sink/sink.js';
import type { StoredRow } from './harness.js';

/** Postgres hands back Dates with milliseconds; records carry `YYYY-MM-DDTHH:MM:SSZ`. */
function toIsoSeconds(value: Date): string {
  return value.toISOString().replace(/\.000Z$/, 'Z');
}

function columnValue(value: unknown): ColumnValue {
  if (value instanceof Date) return toIsoSeconds(value);
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' || typeof value === 'number' || value === null) return value;
  throw new Error(`unexpected column value ${JSON.stringify(value)}`);
}

/** A SQL row as the suite compares it: typed columns decoded, `raw` parsed whether TEXT or JSONB. */
export function toStoredRow(row: Record<string, unknown>, table: StreamTable, integers: ReadonlySet<string> = new Set()): StoredRow {
  const fields: Record<string, ColumnValue> = {};
  for (const column of table.columns) {
    const value = columnValue(row[column.name]);
    fields[column.name] = integers.has(column.name) && typeof value === 'string' ? Number(value) : value;
  }
  const syncedAt = row.synced_at instanceof Date ? row.synced_at.toISOString() : String(row.synced_at);
  return {
    businessId: String(row.business_id),
    id: String(row.id),
    source: String(row.source),
    fields,
    raw: (typeof row.raw === 'string' ? JSON.parse(row.raw) : row.raw) as Json,
    syncedAt,
  };
}

/** Columns declared `integer`: Postgres returns BIGINT as a string. */
export function integerColumns(table: StreamTable): ReadonlySet<string> {
  return new Set(table.columns.filter((column) => column.type === 'integer').map((column) => column.name));
}
