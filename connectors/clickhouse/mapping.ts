import type { ColumnType, ColumnValue, StreamTable, SyncRecord } from '../../src/sink/sink.js';
import { assertIdentifier } from '../sql/schema.js';

/**
 * A record as a row of its ReplacingMergeTree table and back: column types, values, literals.
 * Only types ClickHouse 18.16 has: String, Int64, Float64, UInt8, DateTime('UTC') and Nullable of them.
 */

const COLUMN_TYPES: Record<ColumnType, string> = {
  text: 'Nullable(String)',
  integer: 'Nullable(Int64)',
  number: 'Nullable(Float64)',
  boolean: 'Nullable(UInt8)',
  timestamp: "Nullable(DateTime('UTC'))",
};

/** How a stream column of each type is declared. */
export function clickhouseColumnType(type: ColumnType): string {
  return COLUMN_TYPES[type];
}

/** `` `name` `` for an identifier already safe by {@link assertIdentifier}. */
export function quoteName(name: string): string {
  return `\`${assertIdentifier(name, 'identifier')}\``;
}

/** `` `database`.`table` ``. */
export function qualified(database: string, table: string): string {
  return `${quoteName(database)}.${quoteName(table)}`;
}

/**
 * A string literal: backslash and quote escaped, every control character as `\xHH`, so any
 * well-formed text (ids come from upstream) is one literal and nothing else.
 */
export function quoteString(value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is escaped
  return `'${value.replace(/[\\']/g, (c) => `\\${c}`).replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}'`;
}

/** Literals in one `IN` list: well under ClickHouse's 256 KiB `max_query_size`, whatever the ids. */
const MAX_LIST_BYTES = 128 * 1024;

/**
 * `items` in parts of at most `maxCount`, whose `text` as literals fit {@link MAX_LIST_BYTES}: a
 * literal takes at most 4 bytes a UTF-16 unit (`\xHH`) and its quotes, so 500 ids of 1,024 bytes
 * (the longest the managed sink lets through) become parts of 31.
 */
export function literalParts<T>(items: readonly T[], text: (item: T) => string, maxCount: number): T[][] {
  const parts: T[][] = [];
  let part: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = 4 * text(item).length + 4;
    if (part.length > 0 && (part.length >= maxCount || bytes + size > MAX_LIST_BYTES)) {
      parts.push(part);
      part = [];
      bytes = 0;
    }
    part.push(item);
    bytes += size;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

/** `(a, b, …)` of string literals for `IN`. */
export function stringList(values: readonly string[]): string {
  return `(${values.map(quoteString).join(', ')})`;
}

/** DateTime is seconds since 1970 in a UInt32: 1970-01-01 00:00:00 to 2106-02-07 06:28:15 UTC. */
const MIN_DATETIME = '1970-01-01T00:00:00Z';
const MAX_DATETIME = '2106-02-07T06:28:15Z';

/** `YYYY-MM-DDTHH:MM:SSZ` (a record's timestamp) as ClickHouse's `YYYY-MM-DD HH:MM:SS`, read in the column's UTC. */
function toDateTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** ClickHouse's `YYYY-MM-DD HH:MM:SS` (UTC) back as `YYYY-MM-DDTHH:MM:SSZ`. */
export function fromDateTime(text: string): string {
  return `${text.slice(0, 10)}T${text.slice(11, 19)}Z`;
}

/** Now, whole seconds, as DateTime text. */
export function nowDateTime(now: number): string {
  return toDateTime(new Date(Math.floor(now / 1000) * 1000).toISOString());
}

/**
 * Why ClickHouse cannot keep a record's fields as they are, or undefined when it can: a timestamp
 * outside DateTime's range would be stored as another instant without an error.
 */
export function unstorableField(table: StreamTable, record: SyncRecord): string | undefined {
  for (const column of table.columns) {
    const value = record.fields[column.name];
    if (column.type !== 'timestamp' || typeof value !== 'string') continue;
    if (value < MIN_DATETIME || value > MAX_DATETIME)
      return `${column.name}: ${value} is outside ClickHouse DateTime's range (${MIN_DATETIME} to ${MAX_DATETIME})`;
  }
  return undefined;
}

/** One row of a stream table as JSONEachRow: the record, its `raw` text unchanged, the version. */
export function recordRow(table: StreamTable, record: SyncRecord, rawText: string, version: number, syncedAt: string): Record<string, unknown> {
  const row: Record<string, unknown> = { business_id: record.businessId, id: record.id, source: record.source };
  for (const column of table.columns) {
    const value = record.fields[column.name] ?? null;
    row[column.name] = column.type === 'timestamp' && typeof value === 'string' ? toDateTime(value) : value;
  }
  row.raw = rawText;
  row.synced_at = syncedAt;
  row.deleted_at = null;
  row.version = version;
  return row;
}

/** A stored column value as the record carries it: timestamps ISO, 64-bit integers as numbers. */
export function decodeColumn(type: ColumnType, value: unknown): ColumnValue {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return null;
  if (type === 'timestamp') return fromDateTime(value);
  return type === 'text' ? value : Number(value);
}

/** The stored row's content, as {@link sameContent} compares it. */
export interface StoredContent {
  readonly id: string;
  readonly source: string;
  readonly raw: string;
  readonly deleted: number;
  readonly version: string;
  readonly [column: string]: unknown;
}

/** Whether the stored, not deleted row holds exactly this record: every column and `raw` byte for byte. */
export function sameContent(table: StreamTable, stored: StoredContent, record: SyncRecord, rawText: string): boolean {
  if (Number(stored.deleted) !== 0 || stored.source !== record.source || stored.raw !== rawText) return false;
  for (const column of table.columns) {
    if (decodeColumn(column.type, stored[column.name]) !== (record.fields[column.name] ?? null)) return false;
  }
  return true;
}
