import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { NamedStatement, SinkDatabase, SqlDriver, SqlExecutor } from '../sql/index.js';
import { DEFAULT_BUSY_TIMEOUT_MS, type SqliteSinkConfig } from './config.js';

const STATEMENT_CACHE_SIZE = 64;
/** How long schema changes wait for another writer of the file before giving up. */
const SCHEMA_LOCK_TIMEOUT_MS = 60_000;
const BUSY_RETRY_MS = 25;
const DATA_VERSION = { text: 'pragma data_version', name: 'data_version' };

/**
 * Opens the file (creating its directory) with WAL, so readers never block the writer, and
 * synchronous=NORMAL, which in WAL mode loses at most the last commits on power loss, never consistency.
 * A new file is created 0600 (it holds phone numbers and transcripts); SQLite gives its -wal,
 * -shm and journal the database file's mode. An existing file keeps the mode it has.
 */
export function openSqliteDriver(config: SqliteSinkConfig): SqliteDriver {
  if (config.path !== ':memory:' && config.path !== '') {
    mkdirSync(dirname(config.path), { recursive: true });
    try {
      // Appending creates the file if missing and never truncates one another process has open.
      closeSync(openSync(config.path, 'a', 0o600));
    } catch {
      // A path that cannot be opened (a directory, no permission) is said by better-sqlite3 below, in the codes the connector explains.
    }
  }
  const raw = new Database(config.path, { timeout: config.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
  try {
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
  } catch (error) {
    raw.close();
    throw error;
  }
  return new SqliteDriver(raw);
}

/**
 * Writes and the reads of every poll go through better-sqlite3 prepared statements, cached by SQL
 * text: kysely's driver prepares every query anew, which costs more than the insert itself at
 * 500-row batches. The transaction holds kysely's connection lock, so no kysely query interleaves
 * with it; `select` bypasses that lock and waits for the open transaction itself.
 */
export class SqliteDriver implements SqlDriver {
  readonly db: Kysely<SinkDatabase>;
  readonly #raw: Database.Database;
  readonly #busyTimeoutMs: number;
  readonly #statements = new Map<string, Database.Statement<unknown[]>>();
  /** Settles when the transaction (or schema change) holding the one connection ends. */
  #exclusive: Promise<unknown> | undefined;
  readonly #executor: SqlExecutor = {
    run: (sql, parameters) => Promise.resolve(this.#run(sql, parameters)),
    runEach: (sql, parameterRows) => Promise.resolve(this.#runEach(sql, parameterRows)),
  };

  constructor(raw: Database.Database) {
    this.#raw = raw;
    this.db = new Kysely<SinkDatabase>({ dialect: new SqliteDialect({ database: raw }) });
    this.#busyTimeoutMs = Number(raw.pragma('busy_timeout', { simple: true }));
  }

  async select(statement: NamedStatement, parameters: readonly unknown[]): Promise<Record<string, unknown>[]> {
    // The connection is shared: a read between a transaction's statements would see its uncommitted rows.
    while (this.#exclusive !== undefined) await this.#exclusive.catch(() => undefined);
    return this.#prepared(statement.text).all(parameters) as Record<string, unknown>[];
  }

  async dataVersion(): Promise<number> {
    const [row] = await this.select(DATA_VERSION, []);
    return Number(row?.data_version);
  }

  transaction<T>(body: (executor: SqlExecutor) => Promise<T>): Promise<T> {
    // IMMEDIATE takes the write lock up front, so a busy file waits busy_timeout instead of failing mid-batch.
    return this.#immediate(this.#busyTimeoutMs, () => body(this.#executor));
  }

  /**
   * Holds the file's write lock (`BEGIN IMMEDIATE`) around `body`, so processes sharing the file
   * migrate one at a time: kysely's SQLite migration lock only guards one connection.
   */
  withSchemaLock<T>(body: (db: Kysely<SinkDatabase>) => Promise<T>): Promise<T> {
    return this.#immediate(Math.max(SCHEMA_LOCK_TIMEOUT_MS, this.#busyTimeoutMs), body);
  }

  destroy(): Promise<void> {
    // kysely's SqliteDriver closes the raw handle.
    return this.db.destroy();
  }

  /** `body` gets the connection kysely has locked for it; `this.db` would wait for that lock forever. */
  #immediate<T>(lockTimeoutMs: number, body: (db: Kysely<SinkDatabase>) => Promise<T>): Promise<T> {
    return this.db.connection().execute(async (db) => {
      const held = this.#held(lockTimeoutMs, () => body(db));
      this.#exclusive = held;
      try {
        return await held;
      } finally {
        this.#exclusive = undefined;
      }
    });
  }

  async #held<T>(lockTimeoutMs: number, body: () => Promise<T>): Promise<T> {
    await this.#beginImmediate(lockTimeoutMs);
    try {
      const result = await body();
      this.#raw.exec('commit');
      return result;
    } catch (error) {
      if (this.#raw.inTransaction) this.#raw.exec('rollback');
      throw error;
    }
  }

  /**
   * `BEGIN IMMEDIATE` without blocking the event loop. better-sqlite3 waits for a busy file by
   * sleeping the thread, so a second connection of this same process would stall the holder it
   * waits for; with busy_timeout 0 the wait is an async retry loop instead.
   */
  async #beginImmediate(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    this.#raw.pragma('busy_timeout = 0');
    try {
      for (;;) {
        try {
          this.#raw.exec('begin immediate');
          return;
        } catch (error) {
          if (!isBusy(error) || Date.now() >= deadline) throw error;
        }
        await sleep(BUSY_RETRY_MS);
      }
    } finally {
      // Restored for the statements outside this helper (reads that meet a WAL checkpoint).
      this.#raw.pragma(`busy_timeout = ${String(this.#busyTimeoutMs)}`);
    }
  }

  #run(sql: string, parameters: readonly unknown[]): number {
    // One array binds the anonymous parameters; spreading it would copy it for nothing.
    return this.#prepared(sql).run(parameters).changes;
  }

  #runEach(sql: string, parameterRows: readonly (readonly unknown[])[]): number {
    const statement = this.#prepared(sql);
    let changes = 0;
    for (let row = 0; row < parameterRows.length; row++) changes += statement.run(parameterRows[row]).changes;
    return changes;
  }

  #prepared(sql: string): Database.Statement<unknown[]> {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.clear();
      statement = this.#raw.prepare<unknown[]>(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}
