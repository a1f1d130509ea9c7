import type { Kysely } from 'kysely';

/** SQL text and its prepared-statement name. */
export interface NamedStatement {
  readonly text: string;
  /** Derived from the text, so one name never stands for two texts on a connection. */
  readonly name: string;
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
  /**
   * Appends rows to the temporary table `table` through the database's bulk path, inside the open
   * transaction (adapters with `supportsStagedUpsert`). A value the database refuses rejects the
   * call, appends none of its rows and leaves the transaction usable.
   */
  append?(table: string, rows: readonly (readonly unknown[])[]): Promise<void>;
  /**
   * Loads `rows` (values in `table.columns` order) into a temporary table of this connection,
   * emptied at commit, through the database's bulk path, within the open transaction. Offered by
   * a driver that has such a path (Postgres: `COPY … FROM STDIN`): a batch of at least
   * `STAGED_MIN_ROWS` is then merged from it in one statement instead of binding its rows. Values
   * are converted as bind parameters are, so the rows stored are the same either way. A value the
   * database refuses fails the transaction, as a bound statement does.
   */
  stage?(table: StagingTable, rows: readonly (readonly unknown[])[]): Promise<void>;
  /**
   * Inserts `rows` (values in `target.columns` order) straight into the stream table through the
   * database's bulk path, within the open transaction, and resolves with the rows inserted. No
   * conflict handling: a key already stored fails the transaction with an error the adapter's
   * `isDuplicateKey` recognises, and the store redoes the batch by its upsert; a refused value
   * fails it as `stage` does. Values are converted as `stage` converts them. Offered by a driver
   * that has such a path (Postgres: `COPY` into the table); the store takes it for the batches of
   * a stream whose every row has been new so far (a first backfill), at least `STAGED_MIN_ROWS`.
   */
  insert?(target: InsertTarget, rows: readonly (readonly unknown[])[]): Promise<number>;
}

/** A stream table as {@link SqlExecutor.insert} loads it. */
export interface InsertTarget {
  /** The table, qualified and quoted: SQL text. */
  readonly table: string;
  /** Quoted, in row order. */
  readonly columns: readonly string[];
}

/** A temporary table shaped like a stream table's record rows. */
export interface StagingTable {
  /** A safe identifier, the same for the same columns and types. */
  readonly name: string;
  /** In row order, each with the database's type (the adapter's). */
  readonly columns: readonly { readonly name: string; readonly type: string }[];
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
