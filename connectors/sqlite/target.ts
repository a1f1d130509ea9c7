import Database from 'better-sqlite3';
import type { ColumnDefinitionBuilder } from 'kysely';
import type { Json } from '../../src/sink/sink.js';
import { SqlStore, type SqlAdapter } from '../sql/index.js';
import { openSqliteDriver } from './client.js';

export { openSqliteDriver } from './client.js';
import type { SqliteSinkConfig } from './config.js';
import { sqliteColumnType, sqliteRawValue } from './mapping.js';

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
  columnType: sqliteColumnType,
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

/** The SQLite file as a SQL store: the sink itself, or a connector's `state:`. */
export function openSqliteStore(config: SqliteSinkConfig): SqlStore {
  return new SqlStore(sqliteAdapter, openSqliteDriver(config));
}
