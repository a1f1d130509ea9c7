import Database from 'better-sqlite3';
import type { ColumnType, Json } from '../../src/sink.js';
import type { SqlFlavor } from '../sql/sql-flavor.js';

const COLUMN_TYPES: Record<ColumnType, string> = { text: 'text', integer: 'integer', timestamp: 'text' };

/**
 * Constraint failures (STRICT type checks, NOT NULL, CHECK, triggers), over-size values and type
 * mismatches belong to the row; busy, I/O and schema errors do not and fail the batch.
 */
function isRecordRejection(error: unknown): boolean {
  if (!(error instanceof Database.SqliteError)) return false;
  return error.code.startsWith('SQLITE_CONSTRAINT') || error.code === 'SQLITE_TOOBIG' || error.code === 'SQLITE_MISMATCH';
}

/** SQLite: STRICT tables (a text in an integer column is refused, not stored), JSON and timestamps as text. */
export const sqliteFlavor: SqlFlavor = Object.freeze({
  dialect: 'sqlite',
  schema: undefined,
  maxBindParameters: 32_766,
  columnType: (type: ColumnType) => COLUMN_TYPES[type],
  jsonType: 'text',
  timestampType: 'text',
  counterType: 'integer',
  tableOptions: 'strict',
  placeholder: () => '?',
  differs: (left: string, right: string) => `${left} is not ${right}`,
  isRecordRejection,
  rejectionReason: (error: unknown) => (error instanceof Error ? error.message : String(error)),
  decodeJson: (value: unknown) => JSON.parse(String(value)) as Json,
  decodeTimestamp: (value: unknown) => String(value),
  decodeInteger: (value: unknown) => Number(value),
});
