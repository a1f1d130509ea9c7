import type { ColumnSpec } from '../../src/normalize/column-types.js';
import type { ColumnType, ColumnValue, StreamTable, SyncRecord } from '../../src/sink/sink.js';

/**
 * A record as a Parquet row: the columns every SQL sink's table has (`business_id`, `id`,
 * `source`, the stream's columns, `raw` as the JSON text received, `synced_at`, `deleted_at`),
 * plus `version`, which orders the rows of one record. Files only ever gain rows: a change is a
 * new row with a higher version, a deletion a row with `deleted_at` set and nothing else.
 */

/** The column that orders a record's rows; a stream may not declare a column of that name. */
export const VERSION_COLUMN = 'version';

/** DuckDB's type for each column type; timestamps are stored as Parquet's UTC-adjusted microseconds. */
const DUCKDB_TYPES: Readonly<Record<ColumnType, string>> = {
  text: 'VARCHAR',
  integer: 'BIGINT',
  number: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMPTZ',
};

/** One file's columns, in order, with their DuckDB types. */
export interface RowLayout {
  readonly columns: readonly { readonly name: string; readonly type: ColumnType | 'version' }[];
  /** `CREATE TABLE` column list, quoted. */
  readonly ddl: string;
}

/** The layout of a stream table's files. */
export function rowLayout(table: StreamTable): RowLayout {
  const columns = [
    { name: 'business_id', type: 'text' as const },
    { name: 'id', type: 'text' as const },
    { name: VERSION_COLUMN, type: 'version' as const },
    { name: 'source', type: 'text' as const },
    ...table.columns.map((column) => ({ name: column.name, type: column.type })),
    { name: 'raw', type: 'text' as const },
    { name: 'synced_at', type: 'timestamp' as const },
    { name: 'deleted_at', type: 'timestamp' as const },
  ];
  const ddl = columns.map((column) => `"${column.name}" ${column.type === 'version' ? 'BIGINT' : DUCKDB_TYPES[column.type]}`).join(', ');
  return { columns, ddl };
}

/** One row's values in layout order: JS values the appender takes, `null` for SQL NULL. */
export type RowValue = string | number | bigint | boolean | null;

/** A stored version of a record. `rawText` is `record.raw` as JSON text, stored as it is. */
export function recordRow(record: SyncRecord, table: StreamTable, version: bigint, rawText: string, syncedAt: string): RowValue[] {
  const row: RowValue[] = [record.businessId, record.id, version, record.source];
  for (const column of table.columns) row.push(columnValue(record.fields[column.name], column.type));
  row.push(rawText, syncedAt, null);
  return row;
}

/** A deletion: the key, its version and `deleted_at` (also `synced_at`); every other column NULL. */
export function deletionRow(businessId: string, id: string, table: StreamTable, version: bigint, deletedAt: string): RowValue[] {
  return [businessId, id, version, null, ...table.columns.map(() => null), null, deletedAt, deletedAt];
}

function columnValue(value: ColumnValue | undefined, type: ColumnType): RowValue {
  if (value === undefined || value === null) return null;
  // SQLite's convention, which the normalizers follow: a boolean is 1 or 0.
  if (type === 'boolean') return value !== 0 && value !== '0';
  if (type === 'text') return String(value);
  if (type === 'timestamp' && typeof value === 'string') return utcText(value);
  return value;
}

/**
 * A valid timestamp (see {@link refusal}) as UTC text: DuckDB's appender reads the text of a
 * TIMESTAMPTZ without its offset (`10:00+05:30` would be stored as 10:00 UTC), so an offset is
 * applied here; the fraction is kept to the microsecond, which an offset of whole minutes never moves.
 */
function utcText(text: string): string {
  if (text.endsWith('Z')) return text;
  const utc = new Date(Date.parse(text)).toISOString();
  const fraction = FRACTION.exec(text)?.[0];
  return fraction === undefined ? `${utc.slice(0, 19)}Z` : `${utc.slice(0, 19)}${fraction}Z`;
}

const FRACTION = /\.\d{1,6}/;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:Z|[+-]\d{2}:\d{2})$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The two digits of `text` at `at` as a number (the pattern has put digits there). */
function twoDigits(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;
}

/**
 * Whether `text` is an instant both `Date.parse` and DuckDB read: ISO 8601 with `Z` or an offset,
 * a day its month has (`Date.parse` rolls 2026-02-30 into March; DuckDB refuses it, failing the
 * whole file), minutes and seconds under 60, an offset under 24 hours. Checked digit by digit,
 * which costs a fraction of `Date.parse`; only 24:00 and offsets (rare: the normalizers write `Z`)
 * are left to it. With an offset, the instant must fall in years 0000–9999 once made UTC.
 */
function isTimestamp(text: string): boolean {
  if (!TIMESTAMP.test(text)) return false;
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (month < 1 || month > 12 || day < 1 || day > (DAYS_IN_MONTH[month - 1] as number) + (leap ? 1 : 0)) return false;
  if (twoDigits(text, 14) > 59 || twoDigits(text, 17) > 59) return false;
  const hour = twoDigits(text, 11);
  if (text.endsWith('Z')) return hour < 24 || (hour === 24 && !Number.isNaN(Date.parse(text)));
  if (twoDigits(text, text.length - 5) > 23 || twoDigits(text, text.length - 2) > 59) return false;
  // Stored as UTC text (utcText), which has four digits of year.
  const utc = Date.parse(text);
  return utc >= FIRST_INSTANT && utc < PAST_LAST_INSTANT;
}

/** 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z. */
const FIRST_INSTANT = -62_167_219_200_000;
const PAST_LAST_INSTANT = 253_402_300_800_000;

/**
 * Why a column value cannot be stored in its Parquet type (a timestamp that is not ISO 8601, text
 * in a number column), naming the column; undefined when every value fits.
 */
export function refusal(record: SyncRecord, columns: readonly ColumnSpec[]): string | undefined {
  for (const { name, type } of columns) {
    const value = record.fields[name];
    if (value === undefined || value === null) continue;
    const wrong =
      type === 'timestamp'
        ? typeof value !== 'string' || !isTimestamp(value)
        : type === 'integer'
          ? typeof value !== 'number' || !Number.isSafeInteger(value)
          : type === 'number' || type === 'boolean'
            ? typeof value !== 'number' || !Number.isFinite(value)
            : typeof value !== 'string' && typeof value !== 'number';
    if (wrong) return `${name}: ${JSON.stringify(value).slice(0, 80)} is not a valid ${type}`;
  }
  return undefined;
}
