import { sql } from 'kysely';
import type { Batch, JsonObject, StreamTable, WriteResult } from '../../src/sink.js';
import type { StateStore, TargetCounts } from '../parts.js';
import { SqlCheckpointStore, SqlDeadLetterStore, SqlStoredRecords } from './bookkeeping.js';
import { migrateToLatest } from './migrations.js';
import { addMissingColumns, assertStreamTable, createStreamTable } from './schema.js';
import type { SqlAdapter, SqlDriver } from './sql-dialect.js';
import { StatementCache } from './statements.js';
import { writeBatch, type WriteMode } from './write-batch.js';

/**
 * A SQL database as a state store: records, dead letters and checkpoint of a batch in one
 * transaction, so a crash between pages repeats nothing and loses nothing. For the SQL
 * connectors it is the whole sink (its stream tables are the target); HubSpot and webhook keep
 * their checkpoints, dead letters and the copy of what their target acknowledged in one.
 */
export class SqlStore implements StateStore {
  readonly checkpoints: SqlCheckpointStore;
  readonly deadLetters: SqlDeadLetterStore;
  readonly records: SqlStoredRecords;
  readonly #adapter: SqlAdapter;
  readonly #driver: SqlDriver;
  readonly #statements: StatementCache;

  constructor(adapter: SqlAdapter, driver: SqlDriver) {
    this.#adapter = adapter;
    this.#driver = driver;
    this.#statements = new StatementCache(adapter);
    this.checkpoints = new SqlCheckpointStore(driver.db, adapter);
    this.deadLetters = new SqlDeadLetterStore(driver.db, adapter);
    this.records = new SqlStoredRecords(driver.db, adapter);
  }

  async prepare(tables: readonly StreamTable[]): Promise<void> {
    tables.forEach(assertStreamTable);
    const adapter = this.#adapter;
    await this.#driver.withSchemaLock(async (db) => {
      await migrateToLatest(db, adapter);
      for (const table of tables) await createStreamTable(db, adapter, table);
      await addMissingColumns(db, adapter, tables);
    });
  }

  /**
   * One transaction without savepoints; when the database refuses a row, that transaction rolls
   * back and a fresh one redoes the batch row by row (rare, and cheaper than a savepoint per batch).
   */
  async commit(batch: Batch, position: JsonObject, counts?: TargetCounts): Promise<WriteResult> {
    const input = { batch, position, counts, now: new Date().toISOString() };
    const run = (mode: WriteMode) => this.#driver.transaction((executor) => writeBatch(executor, this.#adapter, this.#statements, input, mode));
    try {
      return await run('bulk');
    } catch (error) {
      if (!this.#adapter.isRecordRejection(error)) throw error;
      return run('per-row');
    }
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.#driver.db);
  }

  close(): Promise<void> {
    return this.#driver.destroy();
  }
}
