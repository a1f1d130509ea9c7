import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';
import { Kysely } from 'kysely';
import type { NamedStatement, SinkDatabase, SqlDriver, SqlExecutor } from '../sql/index.js';
import { DEFAULT_MEMORY_LIMIT, type DuckdbSinkConfig } from './config.js';
import { DuckDbError, duckDbFailure } from './errors.js';
import { DuckDbDialect, Mutex, duckDbParameters } from './kysely.js';
import { appendValueFor, type AppendValue } from './mapping.js';
import { runHere, runSqlHere } from './execute.js';

/** Sequence of `dead_letters.id` (DuckDB has no identity columns); see {@link DuckDbDriver.withSchemaLock}. */
export const DEAD_LETTER_IDS = 'callsync_dead_letter_ids';

const STATEMENT_CACHE_SIZE = 64;

/** The name the sink's file is attached under, and every connection's default catalog. */
const CATALOG = 'callsync';

/**
 * Rows per row group of the file (DuckDB's default is 122,880). A checkpoint rewrites the row group
 * still being filled, all its columns at once, and the backfill's rows (`raw` foremost) make that
 * about 70 MB of native memory at each checkpoint with the default; at 16,384 it is a few MB. Row
 * groups are a layout of the file, read alike by any DuckDB.
 */
const ROW_GROUP_SIZE = 16_384;

function sqlText(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * The DuckDB database at `path`: an instance from DuckDB's per-process cache, under a name of its
 * own per file, which attaches the file as `callsync` with {@link ROW_GROUP_SIZE} (a row group size
 * is an option of `ATTACH`, not of opening a file). Every opener in this process (the sink, a test
 * reading behind it) shares that instance, as DuckDB requires; two instances of one file in one
 * process would each believe they own it. Another process is refused by DuckDB's file lock, as a
 * {@link DuckDbError} `DUCKDB_LOCKED`. Connect with {@link connectDuckDb}.
 */
export async function openDuckDbInstance(path: string): Promise<DuckDBInstance> {
  const file = resolve(path);
  let instance: DuckDBInstance | undefined;
  try {
    mkdirSync(dirname(file), { recursive: true });
    instance = await DuckDBInstance.fromCache(`:memory:callsync-${createHash('sha256').update(file).digest('hex').slice(0, 16)}`);
    const connection = await instance.connect();
    try {
      await connection.run(`attach if not exists ${sqlText(file)} as ${CATALOG} (row_group_size ${ROW_GROUP_SIZE})`);
    } finally {
      connection.closeSync();
    }
    return instance;
  } catch (error) {
    instance?.closeSync();
    throw duckDbFailure(error);
  }
}

/** A connection to the file of `instance` (its default catalog) that reads and writes timestamps in UTC, whatever the machine's zone. */
export async function connectDuckDb(instance: DuckDBInstance): Promise<DuckDBConnection> {
  const connection = await instance.connect();
  try {
    await connection.run(`use ${CATALOG}`);
    await connection.run(`set TimeZone = 'UTC'`);
    return connection;
  } catch (error) {
    connection.closeSync();
    throw error;
  }
}

/** Opens the file (creating it and its directory) with three connections: writes, the reads of every poll, and kysely. */
export async function openDuckDbDriver(config: DuckdbSinkConfig): Promise<DuckDbDriver> {
  const instance = await openDuckDbInstance(config.path);
  const connections: DuckDBConnection[] = [];
  try {
    for (let index = 0; index < 3; index++) connections.push(await connectDuckDb(instance));
    const [write, read, ddl] = connections as [DuckDBConnection, DuckDBConnection, DuckDBConnection];
    // Settings of the database, not the connection. The buffer pool is part of the sink's RSS; the
    // sink's statements are small merges, and one thread keeps DuckDB's per-thread caches out of it.
    await write.run(`set memory_limit = '${config.memoryLimit ?? DEFAULT_MEMORY_LIMIT}'`);
    await write.run('set threads = 1');
    // Where DuckDB spills what the buffer pool cannot hold: beside the file, as for a file it opens
    // itself (an instance in memory would default to `.tmp` in the working directory).
    await write.run(`set temp_directory = ${sqlText(`${resolve(config.path)}.tmp`)}`);
    return new DuckDbDriver(instance, write, read, ddl);
  } catch (error) {
    for (const connection of connections) connection.closeSync();
    instance.closeSync();
    throw duckDbFailure(error);
  }
}

/** Prepared statements by SQL text on one connection, dropped oldest-first past a bound. */
class PreparedCache {
  readonly #connection: DuckDBConnection;
  readonly #statements = new Map<string, DuckDBPreparedStatement>();

  constructor(connection: DuckDBConnection) {
    this.#connection = connection;
  }

  async get(sql: string): Promise<DuckDBPreparedStatement> {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.clear();
      statement = await this.#connection.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  clear(): void {
    for (const statement of this.#statements.values()) statement.destroySync();
    this.#statements.clear();
  }
}

/**
 * One DuckDB file. Transactions (and schema changes) take the write connection one at a time:
 * one writer is how an embedded file is fastest, and DuckDB would fail one of two transactions
 * that touch the same row. The reads of every poll run on their own connection, which sees only
 * committed rows (DuckDB's MVCC); kysely has a third.
 */
class DuckDbDriver implements SqlDriver {
  readonly db: Kysely<SinkDatabase>;
  readonly #instance: DuckDBInstance;
  readonly #write: DuckDBConnection;
  readonly #read: DuckDBConnection;
  readonly #ddl: DuckDBConnection;
  readonly #writes = new Mutex();
  readonly #reads = new Mutex();
  readonly #writeStatements: PreparedCache;
  readonly #readStatements: PreparedCache;
  readonly #executor: SqlExecutor = {
    run: (sql, parameters) => this.#run(sql, parameters),
    append: (table, rows) => this.#append(table, rows),
  };
  #destroyed = false;

  constructor(instance: DuckDBInstance, write: DuckDBConnection, read: DuckDBConnection, ddl: DuckDBConnection) {
    this.#instance = instance;
    this.#write = write;
    this.#read = read;
    this.#ddl = ddl;
    this.#writeStatements = new PreparedCache(write);
    this.#readStatements = new PreparedCache(read);
    this.db = new Kysely<SinkDatabase>({ dialect: new DuckDbDialect(ddl) });
  }

  select(statement: NamedStatement, parameters: readonly unknown[]): Promise<Record<string, unknown>[]> {
    return this.#reads.run(async () => {
      const prepared = await this.#readStatements.get(statement.text);
      prepared.bind(duckDbParameters(parameters));
      return (await runHere(prepared).readAll()).getRowObjectsJS();
    });
  }

  transaction<T>(body: (executor: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#writes.run(async () => {
      await this.#write.run('begin transaction');
      try {
        const result = await body(this.#executor);
        // The commit runs here too: an automatic checkpoint, DuckDB's largest allocation, happens in it.
        await runSqlHere(this.#write, 'commit');
        return result;
      } catch (error) {
        // After a failed statement DuckDB holds the transaction aborted until it is rolled back.
        await this.#write.run('rollback').catch(() => undefined);
        throw duckDbFailure(error);
      }
    });
  }

  /**
   * Runs `body` while no transaction of this driver runs. Another process cannot hold the file,
   * so this is the only writer to wait for. The sequence of `dead_letters.id` is made here because
   * the shared migration creates the table with a default that reads it.
   */
  withSchemaLock<T>(body: (db: Kysely<SinkDatabase>) => Promise<T>): Promise<T> {
    return this.#writes.run(async () => {
      try {
        await this.#ddl.run(`create sequence if not exists "${DEAD_LETTER_IDS}"`);
        return await body(this.db);
      } catch (error) {
        throw duckDbFailure(error);
      }
    });
  }

  async destroy(): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    await this.db.destroy();
    // Waits for the transaction and read in flight; the instance closes (and the file's lock goes) with its last connection.
    await this.#writes.run(() =>
      this.#reads.run(() => {
        this.#writeStatements.clear();
        this.#readStatements.clear();
        for (const connection of [this.#write, this.#read, this.#ddl]) connection.closeSync();
        this.#instance.closeSync();
        return Promise.resolve();
      }),
    );
  }

  async #run(sql: string, parameters: readonly unknown[]): Promise<number> {
    // A statement without parameters (the stage's DDL and merge) may name a temporary table a
    // rolled-back transaction dropped: it is not kept prepared.
    if (parameters.length === 0) return (await runSqlHere(this.#write, sql)).rowsChanged;
    const prepared = await this.#writeStatements.get(sql);
    prepared.bind(duckDbParameters(parameters));
    return (await runHere(prepared).getResult()).rowsChanged;
  }

  /** DuckDB's appender into the temporary table `table`, in the open transaction; a refused value clears the rows of this call. */
  async #append(table: string, rows: readonly (readonly unknown[])[]): Promise<void> {
    const appender = await this.#write.createAppender(table, 'main', 'temp');
    try {
      const appends: AppendValue[] = [];
      for (let column = 0; column < appender.columnCount; column++) appends.push(appendValueFor(appender.columnType(column).typeId));
      appendRows(appender, appends, rows);
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }
}

function appendRows(appender: DuckDBAppender, appends: readonly AppendValue[], rows: readonly (readonly unknown[])[]): void {
  try {
    for (let row = 0; row < rows.length; row++) {
      const values = rows[row] as readonly unknown[];
      for (let column = 0; column < appends.length; column++) (appends[column] as AppendValue)(appender, values[column]);
      appender.endRow();
    }
  } catch (error) {
    // The rows not yet flushed, this call's, are dropped: a refused row leaves the stage as it was.
    appender.clear();
    throw new DuckDbError('DUCKDB_VALUE_REFUSED', error);
  }
}
