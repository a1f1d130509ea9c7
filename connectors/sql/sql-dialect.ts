import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { ColumnType, Json } from '../../src/sink/sink.js';
import type { NamedStatement } from './named-statement.js';

/** How a value read from `raw` becomes a column value: a column type, or seconds from a duration. */
export type RawConversion = ColumnType | 'duration';

/**
 * A SQL dialect is two parts, as in kysely: an adapter (what the database accepts and how its
 * values come back: pure data and functions) and a driver (its connections). Shared code in
 * `connectors/sql` asks the adapter's flags, never which database it is.
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
  /** The database's own words for a rejection, as stored in `dead_letters.reason`. */
  rejectionReason(error: unknown): string;
  decodeJson(value: unknown): Json;
  decodeTimestamp(value: unknown): string;
  decodeInteger(value: unknown): number;
}

/**
 * Kysely's view of the bookkeeping tables. Value types are loose because SQLite and Postgres
 * hand back different JS types; the adapter decodes them.
 */
export interface SinkDatabase {
  sync_state: {
    business_id: string;
    stream: string;
    /** JSON text on insert; JSON text (SQLite) or parsed JSON (Postgres) on select. */
    position: unknown;
    records_synced: unknown;
    updated_at: unknown;
  };
  dead_letters: {
    id: unknown;
    business_id: string;
    stream: string;
    reason: string;
    /** Always JSON text, so a record the database refused as JSONB can still be kept. */
    raw: string;
    fingerprint: string;
    first_seen_at: unknown;
    last_seen_at: unknown;
    attempts: unknown;
  };
}

/** One connection inside an open transaction, as the write path uses it. */
export interface SqlExecutor {
  /**
   * Runs one statement and resolves with the number of rows it inserted or changed. A `name`
   * lets the driver keep it prepared on the connection (always the same `sql` for one name).
   */
  run(sql: string, parameters: readonly unknown[], name?: string): Promise<number>;
  /**
   * Runs one statement once per parameter row and resolves with the rows inserted or changed in
   * all. Offered by an in-process driver (SQLite), where binding a 15-value row 500 times costs
   * less than one 7,500-value VALUES list; a driver that talks to a server leaves it out and gets
   * one multi-row statement per chunk instead.
   */
  runEach?(sql: string, parameterRows: readonly (readonly unknown[])[]): Promise<number>;
}

/** A dialect's connections. */
export interface SqlDriver {
  /** Kysely for bookkeeping queries and DDL, already bound to the adapter's schema. */
  readonly db: Kysely<SinkDatabase>;
  /**
   * Runs one read outside any transaction, kept prepared (by text on SQLite, by name on each
   * Postgres connection), and resolves with its rows: a read asked each idle poll costs neither a
   * kysely build nor a parse. It never sees the uncommitted rows of a transaction of this driver.
   */
  select(statement: NamedStatement, parameters: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /**
   * A number that changes whenever another connection (another process, an operator's shell)
   * has committed to the database since it was last read; absent where the database has nothing
   * that cheap (Postgres). Commits of this driver's own connection leave it unchanged.
   */
  dataVersion?(): Promise<number>;
  /** Runs `body` in one transaction on one connection: commits when it resolves, rolls back when it rejects. */
  transaction<T>(body: (executor: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Runs `body` on one connection while holding a lock that serialises schema changes with every
   * other process and sink on the same database, so concurrent starts migrate exactly once.
   */
  withSchemaLock<T>(body: (db: Kysely<SinkDatabase>) => Promise<T>): Promise<T>;
  /** Closes every connection. */
  destroy(): Promise<void>;
}
