import { sql } from 'kysely';
import { chunks } from '../../src/base/chunks.js';
import type { DeadLetter, JsonObject, StreamTable, WriteResult } from '../../src/sink/sink.js';
import { canonicalJson } from '../../src/normalize/index.js';
import type { StateStore, StoreBatch, TargetCounts } from '../../src/sink/parts.js';
import { SqlCheckpointStore, SqlDeadLetterStore, SqlStateStoreRecords } from './bookkeeping.js';
import type { SqlDriver, SqlExecutor } from './client.js';
import type { SqlAdapter } from './dialect.js';
import { deadLetterParameters } from './mapping.js';
import { migrateToLatest } from './migrations.js';
import { assertStreamTable, prepareStreamTables } from './schema.js';
import { STAGED_MIN_ROWS, StatementCache } from './statements.js';

/**
 * The SQL write path: the state store's commit (one transaction: upsert, dead letters,
 * checkpoint) over the statements of `statements.ts` and the rows of `mapping.ts`.
 */

/**
 * A SQL database as a state store: records, dead letters and checkpoint of a batch in one
 * transaction, so a crash between pages repeats nothing and loses nothing. For the SQL
 * connectors it is the whole sink (its stream tables are the target); HubSpot and webhook keep
 * their checkpoints, dead letters and the copy of what their target acknowledged in one.
 */
export class SqlStore implements StateStore {
  readonly checkpoints: SqlCheckpointStore;
  readonly deadLetters: SqlDeadLetterStore;
  readonly records: SqlStateStoreRecords;
  readonly #adapter: SqlAdapter;
  readonly #driver: SqlDriver;
  readonly #statements: StatementCache;
  /** Per business × stream, the position (JSON text) this store last committed or found stored: one writer per stream. */
  readonly #places = new Map<string, string>();
  /**
   * Business × stream whose batch found a row stored already when inserted as new (`insert`
   * mode): their batches go by the upsert from then on. A stream absent is inserted into while it
   * lasts, a first backfill's every batch; a replay or an incremental sync pays one failed insert.
   */
  readonly #merging = new Set<string>();

  constructor(adapter: SqlAdapter, driver: SqlDriver) {
    this.#adapter = adapter;
    this.#driver = driver;
    this.#statements = new StatementCache(adapter);
    this.checkpoints = new SqlCheckpointStore(driver, adapter);
    this.deadLetters = new SqlDeadLetterStore(driver, adapter);
    this.records = new SqlStateStoreRecords(driver, adapter);
  }

  async prepare(tables: readonly StreamTable[]): Promise<void> {
    tables.forEach(assertStreamTable);
    const adapter = this.#adapter;
    try {
      await this.#driver.withSchemaLock(async (db) => {
        await migrateToLatest(db, adapter);
        await prepareStreamTables(db, adapter, tables);
      });
    } finally {
      this.records.wroteAnywhere();
    }
  }

  /**
   * One transaction without savepoints; when the database refuses a row, that transaction rolls
   * back and a fresh one redoes the batch row by row (rare, and cheaper than a savepoint per batch).
   * `targetDurable` is awaited inside the transaction, after the rows and before the checkpoint.
   */
  async commit(batch: StoreBatch, position: JsonObject, counts?: TargetCounts, targetDurable?: Promise<void>): Promise<WriteResult> {
    const positionText = JSON.stringify(position);
    const stream = `${batch.businessId}\u0000${batch.table.stream}`;
    if (counts === undefined && (await this.#holdsAlready(batch, stream, position, positionText))) {
      await targetDurable;
      return { written: 0, unchanged: batch.records.length, deadLettered: 0 };
    }
    const input = { batch, positionText, counts, targetDurable, now: new Date().toISOString() };
    const run = (mode: WriteMode) => this.#driver.transaction((executor) => writeBatch(executor, this.#adapter, this.#statements, input, mode));
    const perRow = (error: unknown): Promise<WriteResult> => {
      if (error instanceof TargetNotDurable || !this.#adapter.isRecordRejection(error)) throw error;
      return run('per-row');
    };
    const first: WriteMode = this.#adapter.isDuplicateKey !== undefined && !this.#merging.has(stream) ? 'insert' : 'bulk';
    let changed = batch.records.length > 0;
    try {
      const result = await run(first).catch((error: unknown) => {
        if (first !== 'insert' || this.#adapter.isDuplicateKey?.(error) !== true) return perRow(error);
        // A row of this batch is stored already: this stream is no first backfill (or no longer),
        // so its batches merge from now on rather than fail an insert each.
        this.#merging.add(stream);
        return run('bulk').catch(perRow);
      });
      // A commit that changed no row (a newest-first list's head page polled again) changes no count.
      changed &&= counts !== undefined || result.written > 0;
      this.#places.set(stream, positionText);
      return result;
    } catch (error) {
      throw error instanceof TargetNotDurable ? error.reason : error;
    } finally {
      if (changed) this.records.wrote(batch.businessId, batch.table);
    }
  }

  /**
   * A page read again at the stored place (an idle poll's newest-first head page, tracked numbers)
   * whose every record is stored as it came is not written: no write lock (another process writing
   * the SQLite file would wait for it), no commit (a WAL write, on Postgres a flush), `updated_at` left.
   */
  async #holdsAlready(batch: StoreBatch, stream: string, position: JsonObject, positionText: string): Promise<boolean> {
    const { records, table } = batch;
    if (batch.deadLetters.length > 0) return false;
    // A backfill's next page is at another place than the one this store wrote last: no read for it.
    const last = this.#places.get(stream);
    if (last !== undefined && last !== positionText) return false;
    const stored = await this.checkpoints.load(batch.businessId, table.stream);
    // Postgres's jsonb keeps its own key order.
    if (stored === undefined || canonicalJson(stored.position) !== canonicalJson(position)) return false;
    this.#places.set(stream, positionText);
    if (records.length === 0) return true;
    try {
      let held = 0;
      for (const { statement, parameters } of this.#statements.heldAsGiven(table, records, batch.rawTexts))
        held += this.#adapter.decodeInteger((await this.#driver.select(statement, parameters))[0]?.held);
      return held === records.length;
    } catch {
      // A value the database refuses (a NUL in Postgres text) is the write's to turn into a dead letter.
      return false;
    }
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.#driver.db);
  }

  close(): Promise<void> {
    return this.#driver.destroy();
  }
}

/**
 * How records are upserted. `bulk`: as few statements as possible and no savepoint, so a refused
 * row fails the whole transaction; the caller then rolls back and redoes the batch `per-row`,
 * each row in its own savepoint so only the refused rows become dead letters. `insert`: as `bulk`,
 * but a batch of at least {@link STAGED_MIN_ROWS} goes by the driver's `insert` (no conflict
 * handling; half the server's work of staging and merging) where it has one, so a stored key
 * fails the transaction too, and the caller redoes the batch `bulk`.
 */
type WriteMode = 'insert' | 'bulk' | 'per-row';

/** What one commit needs besides the open transaction. */
interface CommitInput {
  readonly batch: StoreBatch;
  /** The position the checkpoint moves to, as JSON text. */
  readonly positionText: string;
  /** The target's own counts (a webhook receiver's); without them the rows changed here count. */
  readonly counts: TargetCounts | undefined;
  /** Resolves once the target holds the batch: the checkpoint waits for it. */
  readonly targetDurable: Promise<void> | undefined;
  readonly now: string;
}

/**
 * The target's failure to keep its batch, as it crosses the transaction: no database refused a
 * row, so no redo may follow, and the commit rejects with `reason` itself.
 */
class TargetNotDurable extends Error {
  readonly reason: unknown;

  constructor(reason: unknown) {
    super('the target did not keep the batch');
    this.reason = reason;
  }
}

/**
 * The whole commit of one batch, run by the caller inside one transaction: records, then dead
 * letters, then the checkpoint with `written` added to `records_synced`. In `bulk` mode any
 * failure propagates; in `per-row` mode a row the database refuses becomes a dead letter.
 */
async function writeBatch(executor: SqlExecutor, adapter: SqlAdapter, statements: StatementCache, input: CommitInput, mode: WriteMode): Promise<WriteResult> {
  const { batch, now } = input;
  const { table, records, rawTexts } = batch;
  let changed = 0;
  const refused: DeadLetter[] = [];
  const bulk = mode !== 'per-row';
  if (mode === 'insert' && executor.insert !== undefined && records.length >= STAGED_MIN_ROWS) {
    changed = await statements.runInsert(executor, table, records, now, rawTexts);
  } else if (bulk && executor.stage !== undefined && records.length >= STAGED_MIN_ROWS) {
    changed = await statements.runStaged(executor, table, records, now, rawTexts);
  } else if (bulk) {
    const size = statements.rowsPerStatement(table);
    const textParts = rawTexts === undefined ? undefined : chunks(rawTexts, size);
    for (const [index, part] of chunks(records, size).entries()) changed += await statements.runUpsert(executor, table, part, now, textParts?.[index]);
  } else if (adapter.supportsStagedUpsert === true) {
    // A refused append leaves the transaction usable: each row is appended alone, then one merge.
    await statements.openStage(executor, table);
    for (const [index, record] of records.entries()) {
      const text = rawTexts?.[index];
      try {
        await statements.appendToStage(executor, table, [record], now, text === undefined ? undefined : [text]);
      } catch (rowError) {
        if (!adapter.isRecordRejection(rowError)) throw rowError;
        refused.push({ businessId: record.businessId, stream: table.stream, reason: adapter.rejectionReason(rowError), raw: record.raw });
      }
    }
    changed = await statements.mergeStage(executor, table);
  } else {
    for (const [index, record] of records.entries()) {
      const text = rawTexts?.[index];
      try {
        changed += await inSavepoint(executor, 'one_row', () => statements.runUpsert(executor, table, [record], now, text === undefined ? undefined : [text]));
      } catch (rowError) {
        if (!adapter.isRecordRejection(rowError)) throw rowError;
        refused.push({ businessId: record.businessId, stream: table.stream, reason: adapter.rejectionReason(rowError), raw: record.raw });
      }
    }
  }
  for (const letter of [...batch.deadLetters, ...refused]) {
    await executor.run(statements.deadLetter.text, deadLetterParameters(letter, now), statements.deadLetter.name);
  }
  // The rows went in while the target was still storing; the checkpoint moves only past what it holds.
  await input.targetDurable?.catch((reason: unknown) => {
    throw new TargetNotDurable(reason);
  });
  const stored = records.length - refused.length;
  const written = input.counts?.written ?? changed;
  const unchanged = input.counts?.unchanged ?? stored - changed;
  const { text, name } = statements.checkpointAdvance;
  await executor.run(text, [batch.businessId, table.stream, input.positionText, written, now], name);
  return { written, unchanged, deadLettered: batch.deadLetters.length + refused.length };
}

/**
 * Runs `body` between SAVEPOINT and RELEASE; on failure rolls back to the savepoint, so the
 * transaction stays usable (Postgres aborts the whole transaction on any failed statement otherwise).
 */
async function inSavepoint<T>(executor: SqlExecutor, name: string, body: () => Promise<T>): Promise<T> {
  await executor.run(`savepoint ${name}`, []);
  try {
    const result = await body();
    await executor.run(`release savepoint ${name}`, []);
    return result;
  } catch (error) {
    await executor.run(`rollback to savepoint ${name}`, []);
    await executor.run(`release savepoint ${name}`, []);
    throw error;
  }
}
