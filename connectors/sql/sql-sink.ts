import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Batch, Checkpoint, StreamTable, WriteResult } from '../../src/sink.js';
import type { SinkConnector } from '../sink-connector.js';
import { SqlCheckpointStore } from './checkpoint-store.js';
import { SqlDeadLetterStore } from './dead-letter-store.js';
import { migrateToLatest } from './migrations.js';
import type { SinkDatabase } from './sink-database.js';
import type { SqlExecutor } from './sql-executor.js';
import type { SqlFlavor } from './sql-flavor.js';
import { addMissingColumns, assertStreamTable, createStreamTable } from './stream-table-ddl.js';
import { StatementCache, writeBatch } from './write-batch.js';
import type { WriteMode } from './write-batch.js';

/** What a SQL dialect folder provides: its connection handling; the rest is shared. */
export interface SqlBackend {
  /** Kysely for bookkeeping queries and DDL, already bound to the flavor's schema. */
  readonly db: Kysely<SinkDatabase>;
  readonly flavor: SqlFlavor;
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

/**
 * A SQL warehouse sink: batch, dead letters and checkpoint in one transaction
 * (`transactionalCheckpoint`), so a crash between pages repeats nothing and loses nothing.
 */
export class SqlSink implements SinkConnector {
  readonly type: string;
  readonly capabilities = { transactionalCheckpoint: true } as const;
  readonly checkpoints: SqlCheckpointStore;
  readonly deadLetters: SqlDeadLetterStore;
  readonly #backend: SqlBackend;
  readonly #statements: StatementCache;

  constructor(type: string, backend: SqlBackend) {
    this.type = type;
    this.#backend = backend;
    this.#statements = new StatementCache(backend.flavor);
    this.checkpoints = new SqlCheckpointStore(backend.db, backend.flavor);
    this.deadLetters = new SqlDeadLetterStore(backend.db, backend.flavor);
  }

  async prepare(tables: readonly StreamTable[]): Promise<void> {
    tables.forEach(assertStreamTable);
    const { flavor } = this.#backend;
    await this.#backend.withSchemaLock(async (db) => {
      await migrateToLatest(db, flavor);
      for (const table of tables) await createStreamTable(db, flavor, table);
      await addMissingColumns(db, flavor, tables);
    });
  }

  /**
   * One transaction without savepoints; when the target refuses a row, that transaction rolls back
   * and a fresh one redoes the batch row by row (rare, and cheaper than a savepoint per batch).
   */
  async write(batch: Batch, checkpoint: Checkpoint): Promise<WriteResult> {
    const { flavor } = this.#backend;
    const now = new Date().toISOString();
    const run = (mode: WriteMode) =>
      this.#backend.transaction((executor) => writeBatch(executor, flavor, this.#statements, batch, checkpoint, now, mode));
    try {
      return await run('bulk');
    } catch (error) {
      if (!flavor.isRecordRejection(error)) throw error;
      return run('per-row');
    }
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.#backend.db);
  }

  close(): Promise<void> {
    return this.#backend.destroy();
  }
}
