import type Database from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { SinkDatabase } from '../sql/sink-database.js';
import type { SqlExecutor } from '../sql/sql-executor.js';
import type { SqlBackend } from '../sql/sql-sink.js';
import { sqliteFlavor } from './sqlite-flavor.js';
import type { SqliteHandles } from './sqlite-dialect.js';
import { SCHEMA_LOCK_TIMEOUT_MS, beginImmediate } from './write-lock.js';

const STATEMENT_CACHE_SIZE = 64;

/**
 * Writes go through better-sqlite3 prepared statements, cached by SQL text: kysely's driver
 * prepares every query anew, which costs more than the insert itself at 500-row batches.
 * The transaction holds kysely's connection lock, so no kysely query interleaves with it.
 */
export class SqliteBackend implements SqlBackend {
  readonly flavor = sqliteFlavor;
  readonly db: SqliteHandles['db'];
  readonly #raw: Database.Database;
  readonly #busyTimeoutMs: number;
  readonly #statements = new Map<string, Database.Statement<unknown[]>>();
  readonly #executor: SqlExecutor = { run: (sql, parameters) => Promise.resolve(this.#run(sql, parameters)) };

  constructor(handles: SqliteHandles) {
    this.db = handles.db;
    this.#raw = handles.raw;
    this.#busyTimeoutMs = Number(handles.raw.pragma('busy_timeout', { simple: true }));
  }

  transaction<T>(body: (executor: SqlExecutor) => Promise<T>): Promise<T> {
    return this.db.connection().execute(async () => {
      // IMMEDIATE takes the write lock up front, so a busy file waits busy_timeout instead of failing mid-batch.
      await beginImmediate(this.#raw, this.#busyTimeoutMs, this.#busyTimeoutMs);
      try {
        const result = await body(this.#executor);
        this.#raw.exec('commit');
        return result;
      } catch (error) {
        if (this.#raw.inTransaction) this.#raw.exec('rollback');
        throw error;
      }
    });
  }

  /**
   * Holds the file's write lock (`BEGIN IMMEDIATE`) around `body`, so processes sharing the file
   * migrate one at a time: kysely's SQLite migration lock only guards one connection.
   */
  withSchemaLock<T>(body: (db: Kysely<SinkDatabase>) => Promise<T>): Promise<T> {
    return this.db.connection().execute(async (db) => {
      await beginImmediate(this.#raw, Math.max(SCHEMA_LOCK_TIMEOUT_MS, this.#busyTimeoutMs), this.#busyTimeoutMs);
      try {
        const result = await body(db);
        this.#raw.exec('commit');
        return result;
      } catch (error) {
        if (this.#raw.inTransaction) this.#raw.exec('rollback');
        throw error;
      }
    });
  }

  destroy(): Promise<void> {
    // kysely's SqliteDriver closes the raw handle.
    return this.db.destroy();
  }

  #run(sql: string, parameters: readonly unknown[]): number {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.clear();
      statement = this.#raw.prepare<unknown[]>(sql);
      this.#statements.set(sql, statement);
    }
    return statement.run(...parameters).changes;
  }
}
