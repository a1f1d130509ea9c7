import type { ColumnDefinitionBuilder } from 'kysely';
import type { Logger } from 'pino';
import type { Json } from '../../src/sink/sink.js';
import { SqlStore, type SqlAdapter } from '../sql/index.js';
import { openMysqlDriver } from './client.js';
import type { MysqlSinkConfig } from './config.js';
import { mysqlColumnType, mysqlRawValue } from './mapping.js';

/**
 * Server errors that blame the row: SQLSTATE class 22 (data too long, out of range, a bad value)
 * and 23 (NOT NULL, a duplicate, a CHECK), and the HY000 ones that are about a value: 1366
 * "Incorrect <type> value" (a text in a number column) and 1292 "Truncated incorrect … value".
 */
const ROW_CLASSES = new Set(['22', '23']);
const ROW_ERRNOS = new Set([1366, 1292]);
/** ER_DUP_KEYNAME: `create index` of a name the table has. */
const DUPLICATE_INDEX = 1061;

interface MysqlError {
  readonly message: string;
  readonly errno?: unknown;
  readonly sqlState?: unknown;
  readonly sqlMessage?: unknown;
}

function isMysqlError(error: unknown): error is MysqlError {
  return error instanceof Error && typeof (error as MysqlError).errno === 'number';
}

function isRecordRejection(error: unknown): boolean {
  if (!isMysqlError(error)) return false;
  return ROW_CLASSES.has(String(error.sqlState).slice(0, 2)) || ROW_ERRNOS.has(Number(error.errno));
}

/**
 * MySQL 8 and MariaDB 10.11+ in the URL's database: utf8mb4 with binary collation (exact
 * comparison, as Postgres), LONGTEXT `raw` (MySQL 8's JSON type rewrites the text; this keeps it
 * byte for byte), timestamps as ISO text, multi-row `insert … on duplicate key update`.
 */
export const mysqlAdapter: SqlAdapter = Object.freeze({
  schema: undefined,
  // The protocol's limit on a prepared statement's parameters.
  maxBindParameters: 65_535,
  supportsUnnestUpsert: false,
  upsertSyntax: 'on-duplicate-key',
  rowsAsSelects: true,
  // InnoDB keys stop at 3,072 bytes: three of these (dead_letters' unique key) at 4 bytes a character fit.
  keyTextType: 'varchar(255)',
  longTextType: 'longtext',
  integerCastType: 'signed',
  isDuplicateIndex: (error: unknown) => isMysqlError(error) && error.errno === DUPLICATE_INDEX,
  columnType: mysqlColumnType,
  rawValue: mysqlRawValue,
  jsonType: 'longtext',
  timestampType: 'varchar(32)',
  counterType: 'bigint',
  identityColumn: (column: ColumnDefinitionBuilder) => column.primaryKey().autoIncrement(),
  tableOptions: 'engine = InnoDB default character set utf8mb4 collate utf8mb4_bin',
  placeholder: () => '?',
  // Timestamps are UTC ISO text, so the day is its first ten characters.
  utcDay: (timestamp: string) => `cast(substr(${timestamp}, 1, 10) as date)`,
  // Bytes, not the collation: utf8mb4_bin pads, so 'a' and 'a ' would compare equal.
  differs: (left: string, right: string) => `not (cast(${left} as binary) <=> cast(${right} as binary))`,
  isRecordRejection,
  rejectionReason: (error: unknown) => {
    if (!isMysqlError(error)) return String(error);
    return `${typeof error.sqlMessage === 'string' ? error.sqlMessage : error.message} (errno ${String(error.errno)}, SQLSTATE ${String(error.sqlState)})`;
  },
  decodeJson: (value: unknown) => JSON.parse(String(value)) as Json,
  decodeTimestamp: (value: unknown) => String(value),
  decodeInteger: (value: unknown) => Number(value),
});

/** The URL's database as a SQL store: the sink itself, or a connector's `state:`. */
export function openMysqlStore(config: MysqlSinkConfig, logger: Logger): SqlStore {
  return new SqlStore(mysqlAdapter, openMysqlDriver(config, logger));
}
