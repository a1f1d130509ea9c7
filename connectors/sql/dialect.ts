import type { ColumnDefinitionBuilder } from 'kysely';
import type { Logger } from 'pino';
import type { ZodType } from 'zod';
import type { StateStore } from '../../src/sink/parts.js';
import type { ColumnType, Json } from '../../src/sink/sink.js';
import type { SqlDriver } from './client.js';

/** How a value read from `raw` becomes a column value: a column type, or seconds from a duration. */
export type RawConversion = ColumnType | 'duration';

/**
 * A SQL dialect is two parts, as in kysely: an adapter (what the database accepts and how its
 * values come back: pure data and functions) and a driver (its connections, `client.ts`). Shared
 * code in `connectors/sql` asks the adapter's flags, never which database it is.
 */
export interface SqlAdapter {
  /** Schema holding every table; undefined for SQLite's main database. */
  readonly schema: string | undefined;
  /** Most bind parameters one statement may carry; VALUES-list upserts are chunked below it. */
  readonly maxBindParameters: number;
  /**
   * True when one statement can upsert any number of rows from one array parameter per column
   * (`unnest`): same text and plan for every batch, no chunking.
   * @defaultValue false (a multi-row VALUES list per chunk)
   */
  readonly supportsUnnestUpsert: boolean;
  /**
   * How an upsert merges into a row already there: `on-conflict` (`on conflict (…) do update … where`)
   * or `on-duplicate-key` (`on duplicate key update`, which has no WHERE and runs its assignments left
   * to right, each seeing the columns set before it).
   * @defaultValue 'on-conflict'
   */
  readonly upsertSyntax?: 'on-conflict' | 'on-duplicate-key';
  /**
   * True where a VALUES list cannot stand as a table in a WITH (MySQL 8 wants `values row(…)`,
   * MariaDB refuses that): the idle-page check binds its rows as selects joined by `union all`.
   * @defaultValue false
   */
  readonly rowsAsSelects?: boolean;
  /** Column type of text in a key (`business_id`, `id`, `stream`, `fingerprint`): MySQL indexes no unbounded text. @defaultValue 'text' */
  readonly keyTextType?: string;
  /** Column type of the bookkeeping's unbounded text (`dead_letters.reason`, `raw`): MySQL's `text` stops at 64 KiB. @defaultValue 'text' */
  readonly longTextType?: string;
  /** The type `cast` makes a whole number in (the report views' sums; MySQL casts to `signed`). @defaultValue 'bigint' */
  readonly integerCastType?: string;
  /**
   * Present where `create index if not exists` is not SQL (MySQL 8): the index is created plainly,
   * and a failure this calls "that index is already there" is not one.
   */
  isDuplicateIndex?(error: unknown): boolean;
  /**
   * True when records are upserted by appending them to a temporary staging table through the
   * driver's bulk path (`SqlExecutor.append`: DuckDB's appender) and merging that table in one
   * statement. A value the append refuses fails that append alone, never the transaction, so a
   * refused row needs no savepoint (DuckDB has none).
   * @defaultValue false
   */
  readonly supportsStagedUpsert?: boolean;
  /** Column type for a stream column type. */
  columnType(type: ColumnType): string;
  /**
   * SQL expression reading the row's `raw` at a path of object keys, converted as the
   * normalizers convert (`declaredValue`; `duration` as `parseDuration`); null when the value is
   * absent or of another shape, never an error (a migration filling stored rows must not fail).
   */
  rawValue(path: readonly string[], conversion: RawConversion): string;
  /** Column type of `raw` and `sync_state.position`. */
  readonly jsonType: string;
  readonly timestampType: string;
  /** Counters (`records_synced`, `attempts`) and the `dead_letters.id` key. */
  readonly counterType: string;
  /** Makes a counter column the table's generated primary key. */
  identityColumn(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** Appended after a CREATE TABLE's column list (SQLite: `strict`). */
  readonly tableOptions: string | undefined;
  /** The n-th (1-based) bind placeholder. */
  placeholder(index: number): string;
  /** The UTC calendar day of a timestamp column, for grouping (SQLite: `YYYY-MM-DD` text; Postgres: `date`). */
  utcDay(timestamp: string): string;
  /** SQL true when `left` and `right` differ, NULLs compared as values. */
  differs(left: string, right: string): string;
  /** True when the error is the database refusing this record's data, not the connection or the schema. */
  isRecordRejection(error: unknown): boolean;
  /**
   * True when the error is a key already stored, as a plain insert of a row that is not new
   * fails (`SqlExecutor.insert`): the store then redoes that batch by its upsert. Present where
   * the driver offers `insert`.
   */
  isDuplicateKey?(error: unknown): boolean;
  /** The database's own words for a rejection, as stored in `dead_letters.reason`. */
  rejectionReason(error: unknown): string;
  decodeJson(value: unknown): Json;
  decodeTimestamp(value: unknown): string;
  decodeInteger(value: unknown): number;
}

/**
 * What each dialect folder exports so that its own sink and any connector's `state:` section open
 * it by `type`, through one typed map (`connectors/state-stores`), never a branch on the name.
 */
export interface SqlDialect<Config extends { readonly type: string }> {
  readonly type: Config['type'];
  readonly configSchema: ZodType<Config>;
  /** Opens the store; the dialect's driver loads here, so a run never loads another database's driver. */
  open(config: Config, logger: Logger): Promise<StateStore>;
  /**
   * Opens the database's connections and adapter alone, for tables beside the records that the
   * store does not own (the recordings archive's state). Absent where a dialect does not offer it.
   */
  openDriver?(config: Config, logger: Logger): Promise<{ readonly adapter: SqlAdapter; readonly driver: SqlDriver }>;
}
