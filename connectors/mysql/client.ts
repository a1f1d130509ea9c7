import { createHash } from 'node:crypto';
import { Kysely, MysqlDialect, sql } from 'kysely';
import mysql from 'mysql2';
import type { Pool, PoolConnection, ResultSetHeader } from 'mysql2/promise';
import type { Logger } from 'pino';
import type { NamedStatement, SinkDatabase, SqlDriver, SqlExecutor } from '../sql/index.js';
import { DEFAULT_POOL_SIZE, urlDatabase, type MysqlSinkConfig } from './config.js';

/**
 * Set on every connection before its first statement. ANSI_QUOTES: the shared statements quote
 * identifiers with `"` (kysely's backticks still work). Strict mode: a value that does not fit
 * its column is refused (a dead letter), never truncated or zeroed.
 */
const SESSION =
  "set session sql_mode = 'ANSI_QUOTES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION', time_zone = '+00:00'";

/** A bound value as mysql2 types it; the shared statements bind strings, numbers and nulls. */
type Bound = Parameters<Pool['execute']>[1];

/** How long schema changes wait for another process migrating the same database. */
const SCHEMA_LOCK_TIMEOUT_S = 60;

/**
 * One mysql2 pool, in utf8mb4 with binary collation: kysely (MysqlDialect) for queries and DDL,
 * the pool itself for the write path. FOUND_ROWS is off, so an upsert's affected rows count only
 * rows it inserted or changed (see {@link changedRows}). mysql2 connects on first query.
 */
export function openMysqlDriver(config: MysqlSinkConfig, logger: Logger): MysqlDriver {
  const pool = mysql.createPool({
    uri: config.url,
    connectionLimit: config.poolSize ?? DEFAULT_POOL_SIZE,
    charset: 'UTF8MB4_BIN',
    flags: ['-FOUND_ROWS', '-LOCAL_FILES'],
    // Timestamps are text columns; nothing here is a DATETIME, but a user's view or trigger may be.
    dateStrings: true,
    enableKeepAlive: true,
  });
  pool.on('connection', (connection) => {
    connection.query(SESSION, (error) => {
      if (error !== null) logger.warn({ err: error }, 'mysql session settings failed; statements on that connection will fail');
    });
    // A connection that fails while idle emits 'error'; its next use fails the write that took it.
    connection.on('error', () => undefined);
  });
  return new MysqlDriver(pool, urlDatabase(config.url));
}

/**
 * The rows an `insert … on duplicate key update` inserted or changed. Without FOUND_ROWS the server
 * counts an inserted row 1, a changed row 2 and an unchanged one 0, and a multi-row insert says
 * `Duplicates: n` (the changed rows) in its info; a one-row statement has no info, and 2 is one change.
 */
export function changedRows(header: Pick<ResultSetHeader, 'affectedRows' | 'info'>): number {
  const duplicates = /Duplicates: (\d+)/.exec(header.info);
  if (duplicates !== null) return header.affectedRows - Number(duplicates[1]);
  return header.affectedRows === 2 ? 1 : header.affectedRows;
}

/**
 * Writes and the reads of every poll are prepared statements (`execute`), which mysql2 keeps per
 * connection by text: parsed once per connection, not per batch. Statements are parameterised,
 * never interpolated.
 */
class MysqlDriver implements SqlDriver {
  readonly db: Kysely<SinkDatabase>;
  readonly #callbackPool: mysql.Pool;
  readonly #pool: Pool;
  readonly #lockName: string;

  constructor(pool: mysql.Pool, database: string) {
    this.#callbackPool = pool;
    this.#pool = pool.promise();
    // GET_LOCK names stop at 64 characters; a database name may be that long alone.
    this.#lockName = `callsync schema ${createHash('sha256').update(database).digest('hex').slice(0, 40)}`;
    this.db = new Kysely<SinkDatabase>({ dialect: new MysqlDialect({ pool }) });
  }

  async select(statement: NamedStatement, parameters: readonly unknown[]): Promise<Record<string, unknown>[]> {
    const [rows] = await this.#pool.execute(statement.text, [...parameters] as Bound);
    return rows as Record<string, unknown>[];
  }

  async transaction<T>(body: (executor: SqlExecutor) => Promise<T>): Promise<T> {
    const connection = await this.#pool.getConnection();
    let broken = false;
    try {
      await connection.query('start transaction');
      try {
        const result = await body({ run: (text, parameters) => run(connection, text, parameters) });
        await connection.query('commit');
        return result;
      } catch (error) {
        await connection.query('rollback').catch(() => {
          // A connection that cannot roll back is not handed out again.
          broken = true;
        });
        throw error;
      }
    } finally {
      if (broken) connection.destroy();
      else connection.release();
    }
  }

  /**
   * Holds a named lock (GET_LOCK) keyed by the database around `body`, so concurrent starts create
   * the tables once: kysely's migration lock covers only the migrations, not the stream tables after.
   */
  withSchemaLock<T>(body: (db: Kysely<SinkDatabase>) => Promise<T>): Promise<T> {
    const name = this.#lockName;
    return this.db.connection().execute(async (db) => {
      const { rows } = await sql<{ got: unknown }>`select get_lock(${name}, ${SCHEMA_LOCK_TIMEOUT_S}) as got`.execute(db);
      if (Number(rows[0]?.got) !== 1) throw new Error(`another process held the schema lock of this database for ${String(SCHEMA_LOCK_TIMEOUT_S)} s`);
      try {
        return await body(db);
      } finally {
        await sql`select release_lock(${name})`.execute(db);
      }
    });
  }

  async destroy(): Promise<void> {
    await this.db.destroy();
    // kysely ends the pool only if it ran a query; ending it again is a no-op.
    await new Promise<void>((resolve) => {
      this.#callbackPool.end(() => resolve());
    });
  }
}

/** One statement in the open transaction: prepared when it has parameters (savepoints have none and cannot be). */
async function run(connection: PoolConnection, text: string, parameters: readonly unknown[]): Promise<number> {
  const [header] =
    parameters.length === 0 ? await connection.query<ResultSetHeader>(text) : await connection.execute<ResultSetHeader>(text, [...parameters] as Bound);
  return changedRows(header);
}
