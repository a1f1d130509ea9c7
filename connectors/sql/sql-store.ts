import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { chunks } from '../../src/base/chunks.js';
import type { DeadLetter, JsonObject, StreamTable, SyncRecord, WriteResult } from '../../src/sink/sink.js';
import { canonicalJson } from '../../src/normalize/index.js';
import { jsonText } from '../../src/sink/json-text.js';
import type { StateStore, StoreBatch, TargetCounts } from '../../src/sink/parts.js';
import { SqlCheckpointStore, SqlDeadLetterStore, SqlStateStoreRecords } from './bookkeeping.js';
import { migrateToLatest } from './migrations.js';
import { named, type NamedStatement } from './named-statement.js';
import { assertStreamTable, prepareStreamTables, qualifiedTable, quoteIdentifier } from './schema.js';
import type { SqlAdapter, SqlDriver, SqlExecutor } from './sql-dialect.js';

/**
 * The SQL write path in one place: the state store's commit (one transaction: upsert, dead
 * letters, checkpoint), and the SQL text it runs, built once per table and kept prepared.
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
   */
  async commit(batch: StoreBatch, position: JsonObject, counts?: TargetCounts): Promise<WriteResult> {
    const positionText = JSON.stringify(position);
    const stream = `${batch.businessId}\u0000${batch.table.stream}`;
    if (counts === undefined && (await this.#holdsAlready(batch, stream, position, positionText)))
      return { written: 0, unchanged: batch.records.length, deadLettered: 0 };
    const input = { batch, positionText, counts, now: new Date().toISOString() };
    const run = (mode: WriteMode) => this.#driver.transaction((executor) => writeBatch(executor, this.#adapter, this.#statements, input, mode));
    let changed = batch.records.length > 0;
    try {
      const result = await run('bulk').catch((error: unknown) => {
        if (!this.#adapter.isRecordRejection(error)) throw error;
        return run('per-row');
      });
      // A commit that changed no row (a newest-first list's head page polled again) changes no count.
      changed &&= counts !== undefined || result.written > 0;
      this.#places.set(stream, positionText);
      return result;
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
 * each row in its own savepoint so only the refused rows become dead letters.
 */
type WriteMode = 'bulk' | 'per-row';

/** What one commit needs besides the open transaction. */
interface CommitInput {
  readonly batch: StoreBatch;
  /** The position the checkpoint moves to, as JSON text. */
  readonly positionText: string;
  /** The target's own counts (a webhook receiver's); without them the rows changed here count. */
  readonly counts: TargetCounts | undefined;
  readonly now: string;
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
  if (mode === 'bulk') {
    const size = statements.rowsPerStatement(table);
    const textParts = rawTexts === undefined ? undefined : chunks(rawTexts, size);
    for (const [index, part] of chunks(records, size).entries()) changed += await statements.runUpsert(executor, table, part, now, textParts?.[index]);
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

function deadLetterParameters(letter: DeadLetter, now: string): unknown[] {
  const raw = jsonText(letter.raw);
  // The same bad record of the same business and stream gets the same fingerprint, so a repeat bumps `attempts`.
  const fingerprint = createHash('sha256')
    .update(`[${JSON.stringify(letter.businessId)},${JSON.stringify(letter.stream)},${raw}]`)
    .digest('hex');
  // Postgres text cannot hold U+0000; the reason may quote the very value that was refused.
  const reason = letter.reason.replaceAll('\u0000', '\\u0000');
  return [letter.businessId, letter.stream, reason, raw, fingerprint, now, now];
}

/** Column order of a record row, matching the parameters {@link StatementCache.runUpsert} produces. */
function recordColumns(table: StreamTable): string[] {
  return ['business_id', 'id', 'source', ...table.columns.map((column) => column.name), 'raw', 'synced_at'];
}

function valuesList(adapter: SqlAdapter, rows: number, width: number): string {
  const tuples: string[] = [];
  for (let row = 0; row < rows; row++) {
    const slots: string[] = [];
    for (let column = 1; column <= width; column++) slots.push(adapter.placeholder(row * width + column));
    tuples.push(`(${slots.join(', ')})`);
  }
  return tuples.join(', ');
}

/**
 * The conflict clause of both upserts: update only a row that differs or was marked deleted, so a
 * replay leaves `synced_at` alone, the change count is exactly the rows inserted or changed, and
 * a record that comes back upstream is no longer deleted.
 */
function onConflict(updated: readonly string[], differs: string): string {
  const set = [...updated.map((column) => `${column} = excluded.${column}`), `"deleted_at" = null`].join(', ');
  return `on conflict (business_id, id) do update set ${set} where ${differs} or t."deleted_at" is not null`;
}

/** `unnest` of one typed array parameter per column of {@link recordColumns}. */
function unnestOf(adapter: SqlAdapter, table: StreamTable): string {
  const types = ['text', 'text', 'text', ...table.columns.map((column) => adapter.columnType(column.type)), adapter.jsonType, adapter.timestampType];
  return `unnest(${types.map((type, index) => `${adapter.placeholder(index + 1)}::${type}[]`).join(', ')})`;
}

/** Multi-row upsert by (business_id, id) from a VALUES list of `rows` rows. */
export function recordUpsertSql(adapter: SqlAdapter, table: StreamTable, rows: number): string {
  const columns = recordColumns(table).map(quoteIdentifier);
  const updated = columns.slice(2);
  const differs = updated.slice(0, -1).map((column) => adapter.differs(`t.${column}`, `excluded.${column}`));
  return (
    `insert into ${qualifiedTable(adapter, table.table)} as t (${columns.join(', ')}) ` +
    `values ${valuesList(adapter, rows, columns.length)} ${onConflict(updated, differs.join(' or '))}`
  );
}

/**
 * Upsert of any number of rows from one typed array parameter per column (adapters with
 * `supportsUnnestUpsert`): the text, and the server's plan, is the same for every batch of the
 * table and the bind count stays fixed. Same conflict rule as {@link recordUpsertSql}.
 */
export function recordUnnestUpsertSql(adapter: SqlAdapter, table: StreamTable): string {
  const columns = recordColumns(table).map(quoteIdentifier);
  const updated = columns.slice(2);
  const compared = updated.slice(0, -1);
  const row = (prefix: string) => `(${compared.map((column) => `${prefix}.${column}`).join(', ')})`;
  return (
    `insert into ${qualifiedTable(adapter, table.table)} as t (${columns.join(', ')}) ` +
    `select * from ${unnestOf(adapter, table)} as u(${columns.join(', ')}) ${onConflict(updated, adapter.differs(row('t'), row('excluded')))}`
  );
}

/**
 * How many of the given rows (bound as the upserts bind them) are stored as the upsert's conflict rule would leave them, not deleted.
 */
function recordsHeldSql(adapter: SqlAdapter, table: StreamTable, rows: number): string {
  const columns = recordColumns(table).map(quoteIdentifier);
  const differs = columns
    .slice(2, -1)
    .map((column) => adapter.differs(`t.${column}`, `v.${column}`))
    .join(' or ');
  const count =
    `select count(*) as held from ${adapter.supportsUnnestUpsert ? `${unnestOf(adapter, table)} as v(${columns.join(', ')})` : 'v'} ` +
    `join ${qualifiedTable(adapter, table.table)} as t on t.business_id = v.business_id and t.id = v.id where t."deleted_at" is null and not (${differs})`;
  return adapter.supportsUnnestUpsert ? count : `with v(${columns.join(', ')}) as (values ${valuesList(adapter, rows, columns.length)}) ${count}`;
}

/** Upsert of one dead letter: seen again, it bumps `attempts` and `last_seen_at` instead of adding a row. */
export function deadLetterUpsertSql(adapter: SqlAdapter): string {
  return (
    `insert into ${qualifiedTable(adapter, 'dead_letters')} as t ` +
    `(business_id, stream, reason, raw, fingerprint, first_seen_at, last_seen_at, attempts) ` +
    `values (${valuesList(adapter, 1, 7).slice(1, -1)}, 1) ` +
    `on conflict (business_id, stream, fingerprint) do update set ` +
    `reason = excluded.reason, last_seen_at = excluded.last_seen_at, attempts = t.attempts + 1`
  );
}

/** Moves a checkpoint; `records_synced` grows by the parameter. */
export function checkpointAdvanceSql(adapter: SqlAdapter): string {
  return (
    `insert into ${qualifiedTable(adapter, 'sync_state')} as t (business_id, stream, position, records_synced, updated_at) ` +
    `values (${valuesList(adapter, 1, 5).slice(1, -1)}) ` +
    `on conflict (business_id, stream) do update set ` +
    `position = excluded.position, records_synced = t.records_synced + excluded.records_synced, updated_at = excluded.updated_at`
  );
}

const UNCOMPARED_TIME = new Date(0).toISOString();
/** Rows per statement of the idle-page check without `unnest` (a text per page size filled the driver's statement cache). */
const HELD_ROWS = 32;

/** Page sizes vary little; the bound only matters for a long-lived worker with odd tail sizes. */
const MAX_CACHED_UPSERTS = 256;

/** SQL text built once per table (and, for VALUES lists, row count); building a 500-row VALUES list per batch is measurable. */
export class StatementCache {
  readonly deadLetter: NamedStatement;
  readonly checkpointAdvance: NamedStatement;
  readonly #adapter: SqlAdapter;
  readonly #upserts = new Map<string, NamedStatement>();

  constructor(adapter: SqlAdapter) {
    this.#adapter = adapter;
    this.deadLetter = named(deadLetterUpsertSql(adapter));
    this.checkpointAdvance = named(checkpointAdvanceSql(adapter));
  }

  /** Records one upsert statement takes: any number with `unnest`, else as many as fit under the bind-parameter limit. */
  rowsPerStatement(table: StreamTable): number {
    if (this.#adapter.supportsUnnestUpsert) return Number.POSITIVE_INFINITY;
    return Math.max(1, Math.floor(this.#adapter.maxBindParameters / recordColumns(table).length));
  }

  /**
   * Upserts `records` in one statement (or, where the executor offers `runEach`, one prepared
   * one-row statement per record); resolves with the rows inserted or changed. `rawTexts[i]`,
   * when given, is `records[i].raw` as JSON text already (the managed sink made it once).
   */
  runUpsert(executor: SqlExecutor, table: StreamTable, records: readonly SyncRecord[], now: string, rawTexts?: readonly string[]): Promise<number> {
    if (this.#adapter.supportsUnnestUpsert) {
      const { text, name } = this.#upsert(table, 'unnest', () => recordUnnestUpsertSql(this.#adapter, table));
      return executor.run(text, columnValues(table, records, now, rawTexts), name);
    }
    const rows = rowValues(table, records, now, rawTexts);
    if (executor.runEach !== undefined) {
      const { text } = this.#upsert(table, '1', () => recordUpsertSql(this.#adapter, table, 1));
      return executor.runEach(text, rows);
    }
    const { text, name } = this.#upsert(table, String(records.length), () => recordUpsertSql(this.#adapter, table, records.length));
    return executor.run(text, rows.flat(), name);
  }

  /** {@link recordsHeldSql} for `records`: one `unnest`, else a statement per {@link HELD_ROWS} rows and one a row left over. */
  heldAsGiven(table: StreamTable, records: readonly SyncRecord[], rawTexts?: readonly string[]): { statement: NamedStatement; parameters: unknown[] }[] {
    // `synced_at` is bound as the upserts bind it, any valid time: it is not compared.
    if (this.#adapter.supportsUnnestUpsert) {
      const statement = this.#upsert(table, 'held-unnest', () => recordsHeldSql(this.#adapter, table, records.length));
      return [{ statement, parameters: columnValues(table, records, UNCOMPARED_TIME, rawTexts) }];
    }
    const size = Math.min(HELD_ROWS, this.rowsPerStatement(table));
    const many = this.#upsert(table, `held-${size}`, () => recordsHeldSql(this.#adapter, table, size));
    const one = this.#upsert(table, 'held-1', () => recordsHeldSql(this.#adapter, table, 1));
    return chunks(rowValues(table, records, UNCOMPARED_TIME, rawTexts), size).flatMap((rows) =>
      rows.length === size ? [{ statement: many, parameters: rows.flat() }] : rows.map((row) => ({ statement: one, parameters: row })),
    );
  }

  #upsert(table: StreamTable, shape: string, build: () => string): NamedStatement {
    const key = `${table.table}/${table.columns.map((column) => `${column.name}:${column.type}`).join(',')}/${shape}`;
    let statement = this.#upserts.get(key);
    if (statement === undefined) {
      if (this.#upserts.size >= MAX_CACHED_UPSERTS) this.#upserts.clear();
      statement = named(build());
      this.#upserts.set(key, statement);
    }
    return statement;
  }
}

/**
 * Row after row in {@link recordColumns} order (VALUES lists, `runEach`). Indexed loops into
 * presized arrays: `for…of` here allocated an iterator result per value.
 */
function rowValues(table: StreamTable, records: readonly SyncRecord[], now: string, rawTexts: readonly string[] | undefined): unknown[][] {
  const names = table.columns.map((column) => column.name);
  const rows = new Array<unknown[]>(records.length);
  for (let index = 0; index < records.length; index++) {
    const record = records[index] as SyncRecord;
    const row = new Array<unknown>(names.length + 5);
    row[0] = record.businessId;
    row[1] = record.id;
    row[2] = record.source;
    for (let column = 0; column < names.length; column++) row[column + 3] = record.fields[names[column] as string] ?? null;
    row[names.length + 3] = rawTexts?.[index] ?? JSON.stringify(record.raw);
    row[names.length + 4] = now;
    rows[index] = row;
  }
  return rows;
}

/** One array per column, matching `unnest`. */
function columnValues(table: StreamTable, records: readonly SyncRecord[], now: string, rawTexts: readonly string[] | undefined): unknown[][] {
  const fields = table.columns.map((column) => records.map((record) => record.fields[column.name] ?? null));
  return [
    records.map((record) => record.businessId),
    records.map((record) => record.id),
    records.map((record) => record.source),
    ...fields,
    records.map((record, index) => rawTexts?.[index] ?? JSON.stringify(record.raw)),
    records.map(() => now),
  ];
}
