import Database from 'better-sqlite3';
import type { ColumnDefinitionBuilder } from 'kysely';
import type { ColumnType, Json } from '../../src/sink/sink.js';
import type { SqlAdapter } from '../sql/sql-dialect.js';
import { sqliteRawValue } from './sqlite-raw-value.js';

const COLUMN_TYPES: Record<ColumnType, string> = { text: 'text', integer: 'integer', number: 'real', boolean: 'integer', timestamp: 'text' };

/**
 * Constraint failures (STRICT type checks, NOT NULL, CHECK, triggers), over-size values and type
 * mismatches belong to the row; busy, I/O and schema errors do not and fail the batch.
 */
function isRecordRejection(error: unknown): boolean {
  if (!(error instanceof Database.SqliteError)) return false;
  return error.code.startsWith('SQLITE_CONSTRAINT') || error.code === 'SQLITE_TOOBIG' || error.code === 'SQLITE_MISMATCH';
}

/** SQLite: STRICT tables (a text in an integer column is refused, not stored), JSON and timestamps as text. */
export const sqliteAdapter: SqlAdapter = Object.freeze({
  schema: undefined,
  maxBindParameters: 32_766,
  supportsUnnestUpsert: false,
  columnType: (type: ColumnType) => COLUMN_TYPES[type],
  rawValue: sqliteRawValue,
  jsonType: 'text',
  timestampType: 'text',
  counterType: 'integer',
  identityColumn: (column: ColumnDefinitionBuilder) => column.primaryKey().autoIncrement(),
  tableOptions: 'strict',
  placeholder: () => '?',
  utcDay: (timestamp: string) => `substr(${timestamp}, 1, 10)`,
  differs: (left: string, right: string) => `${left} is not ${right}`,
  isRecordRejection,
  rejectionReason: (error: unknown) => (error instanceof Error ? error.message : String(error)),
  decodeJson: (value: unknown) => JSON.parse(String(value)) as Json,
  decodeTimestamp: (value: unknown) => String(value),
  decodeInteger: (value: unknown) => Number(value),
});
