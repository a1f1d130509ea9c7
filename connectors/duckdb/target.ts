import { sql, type ColumnDefinitionBuilder } from 'kysely';
import type { Json } from '../../src/sink/sink.js';
import { SqlStore, type SqlAdapter } from '../sql/index.js';
import { DEAD_LETTER_IDS, openDuckDbDriver } from './client.js';
import type { DuckdbSinkConfig } from './config.js';
import { DuckDbError } from './errors.js';
import { duckdbColumnType, duckdbRawValue } from './mapping.js';

function decodeTimestamp(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/**
 * DuckDB's `main` schema. `raw` is VARCHAR, not DuckDB's JSON type: the text is kept byte for
 * byte either way in DuckDB 1.5, but VARCHAR promises it, and DuckDB's JSON functions read
 * VARCHAR alike. Records go through the appender into a temporary staging table and one merge
 * (`supportsStagedUpsert`); the appender refuses a value it cannot convert, and only that is a
 * row's fault (a failed statement, by contrast, aborts DuckDB's whole transaction).
 */
export const duckdbAdapter: SqlAdapter = Object.freeze({
  schema: undefined,
  // Only the idle-page check binds parameters by the row (32 rows a statement); DuckDB sets no low limit.
  maxBindParameters: 65_535,
  supportsUnnestUpsert: false,
  supportsStagedUpsert: true,
  columnType: duckdbColumnType,
  rawValue: duckdbRawValue,
  jsonType: 'varchar',
  timestampType: 'timestamptz',
  counterType: 'bigint',
  identityColumn: (column: ColumnDefinitionBuilder) => column.primaryKey().defaultTo(sql.raw(`nextval('${DEAD_LETTER_IDS}')`)),
  tableOptions: undefined,
  placeholder: (index: number) => `$${index}`,
  utcDay: (timestamp: string) => `cast(${timestamp} at time zone 'UTC' as date)`,
  differs: (left: string, right: string) => `${left} is distinct from ${right}`,
  isRecordRejection: (error: unknown) => error instanceof DuckDbError && error.code === 'DUCKDB_VALUE_REFUSED',
  rejectionReason: (error: unknown) => (error instanceof Error ? error.message : String(error)),
  decodeJson: (value: unknown) => JSON.parse(String(value)) as Json,
  decodeTimestamp,
  decodeInteger: (value: unknown) => Number(value),
});

/** The DuckDB file as a SQL store: the sink itself, or a connector's `state:`. */
export async function openDuckDbStore(config: DuckdbSinkConfig): Promise<SqlStore> {
  return new SqlStore(duckdbAdapter, await openDuckDbDriver(config));
}
