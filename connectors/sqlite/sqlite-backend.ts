import type Database from 'better-sqlite3';
import type { SqlExecutor } from '../sql/sql-executor.js';
import type { SqlBackend } from '../sql/sql-sink.js';
import { sqliteFlavor } from './sqlite-flavor.js';
import type { SqliteHandles } from './sqlite-dialect.js';

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
  readonly #statements = new Map<string, Database.Statement<unknown[]>>();
  readonly #executor: SqlExecutor = { run: (sql, parameters) => Promise.resolve(this.#run(sql, parameters)) };

  constructor(handles: SqliteHandles) {
    this.db = handles.db;
    this.#raw = handles.raw;
  }

  transaction<T>(body: (executor: SqlExecutor) => Promise<T>): Promise<T> {
    return this.db.connection().execute(async () => {
      // IMMEDIATE takes the write lock up front, so a busy file waits busy_timeout instead of failing mid-batch.
      this.#raw.exec('begin immediate');
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
