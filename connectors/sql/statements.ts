import { createHash } from 'node:crypto';
import { chunks } from '../../src/base/chunks.js';
import type { StreamTable, SyncRecord } from '../../src/sink/sink.js';
import type { NamedStatement, SqlExecutor, StagingTable } from './client.js';
import type { SqlAdapter } from './dialect.js';
import { columnValues, recordColumns, rowValues } from './mapping.js';
import { qualifiedTable, quoteIdentifier } from './schema.js';

/** SQL text and a prepared-statement name derived from it: one name never stands for two texts on a connection. */
export function named(text: string): NamedStatement {
  return { text, name: `callsync_${createHash('sha256').update(text).digest('hex').slice(0, 32)}` };
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

/** `select …, … union all select …`: the rows of {@link valuesList} where a VALUES list cannot stand as a table (`rowsAsSelects`). */
function selectsList(adapter: SqlAdapter, rows: number, width: number): string {
  const selects: string[] = [];
  for (let row = 0; row < rows; row++) {
    const slots: string[] = [];
    for (let column = 1; column <= width; column++) slots.push(adapter.placeholder(row * width + column));
    selects.push(`select ${slots.join(', ')}`);
  }
  return selects.join(' union all ');
}

/**
 * {@link onConflict} where the upsert is `on duplicate key update` (`upsertSyntax`): there is no
 * WHERE, and each assignment sees the columns assigned before it, so `synced_at` is decided
 * first, from the stored values, and `deleted_at` cleared next; the others take the new values. A
 * replay then sets every column to what it holds, and the server leaves that row unchanged (not counted).
 */
function onDuplicateKey(adapter: SqlAdapter, updated: readonly string[]): string {
  const compared = updated.slice(0, -1);
  const syncedAt = updated.at(-1) ?? '';
  const differs = compared.map((column) => adapter.differs(column, `values(${column})`)).join(' or ');
  const set = compared.map((column) => `${column} = values(${column})`).join(', ');
  return (
    `on duplicate key update ${syncedAt} = case when ${differs} or "deleted_at" is not null then values(${syncedAt}) else ${syncedAt} end, ` +
    `"deleted_at" = null, ${set}`
  );
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
  return `unnest(${recordTypes(adapter, table)
    .map((type, index) => `${adapter.placeholder(index + 1)}::${type}[]`)
    .join(', ')})`;
}

/** The database's type of each column of {@link recordColumns}, in order. */
function recordTypes(adapter: SqlAdapter, table: StreamTable): string[] {
  return ['text', 'text', 'text', ...table.columns.map((column) => adapter.columnType(column.type)), adapter.jsonType, adapter.timestampType];
}

/** Multi-row upsert by (business_id, id) from a VALUES list of `rows` rows. */
export function recordUpsertSql(adapter: SqlAdapter, table: StreamTable, rows: number): string {
  const columns = recordColumns(table).map(quoteIdentifier);
  const updated = columns.slice(2);
  if (adapter.upsertSyntax === 'on-duplicate-key') {
    return `insert into ${qualifiedTable(adapter, table.table)} (${columns.join(', ')}) values ${valuesList(adapter, rows, columns.length)} ${onDuplicateKey(adapter, updated)}`;
  }
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
 * Upsert of every row of the staging table `stage` (adapters with `supportsStagedUpsert`), which
 * holds the record columns in {@link recordColumns} order. Same conflict rule as {@link recordUpsertSql}.
 */
export function recordStagedUpsertSql(adapter: SqlAdapter, table: StreamTable, stage: string): string {
  const columns = recordColumns(table).map(quoteIdentifier);
  const updated = columns.slice(2);
  const differs = updated.slice(0, -1).map((column) => adapter.differs(`t.${column}`, `excluded.${column}`));
  return (
    `insert into ${qualifiedTable(adapter, table.table)} as t (${columns.join(', ')}) ` +
    `select ${columns.join(', ')} from ${quoteIdentifier(stage)} ${onConflict(updated, differs.join(' or '))}`
  );
}

/** The statements of a staged upsert of one table: the staging table's name, its (re)creation and the merge. */
interface StagedUpsert {
  readonly stage: string;
  readonly create: string;
  readonly merge: string;
  /** The staging table as a driver's `stage` creates it (column types from the adapter). */
  readonly staging: StagingTable;
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
  if (adapter.supportsUnnestUpsert) return count;
  const values = adapter.rowsAsSelects === true ? selectsList(adapter, rows, columns.length) : `values ${valuesList(adapter, rows, columns.length)}`;
  return `with v(${columns.join(', ')}) as (${values}) ${count}`;
}

/** Upsert of one dead letter: seen again, it bumps `attempts` and `last_seen_at` instead of adding a row. */
export function deadLetterUpsertSql(adapter: SqlAdapter): string {
  if (adapter.upsertSyntax === 'on-duplicate-key') {
    return (
      `insert into ${qualifiedTable(adapter, 'dead_letters')} (business_id, stream, reason, raw, fingerprint, first_seen_at, last_seen_at, attempts) ` +
      `values (${valuesList(adapter, 1, 7).slice(1, -1)}, 1) ` +
      `on duplicate key update reason = values(reason), last_seen_at = values(last_seen_at), attempts = attempts + 1`
    );
  }
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
  if (adapter.upsertSyntax === 'on-duplicate-key') {
    return (
      `insert into ${qualifiedTable(adapter, 'sync_state')} (business_id, stream, position, records_synced, updated_at) ` +
      `values (${valuesList(adapter, 1, 5).slice(1, -1)}) ` +
      `on duplicate key update position = values(position), records_synced = records_synced + values(records_synced), updated_at = values(updated_at)`
    );
  }
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

/**
 * Fewest records a batch goes through a driver's `stage` with: below it, the bulk path's own costs
 * (a statement and a round trip more than one bound upsert) outweigh its gain, as for the few new
 * rows of a poll or a CRM's copy of a batch.
 */
export const STAGED_MIN_ROWS = 200;

/** Page sizes vary little; the bound only matters for a long-lived worker with odd tail sizes. */
const MAX_CACHED_UPSERTS = 256;

/** SQL text built once per table (and, for VALUES lists, row count); building a 500-row VALUES list per batch is measurable. */
export class StatementCache {
  readonly deadLetter: NamedStatement;
  readonly checkpointAdvance: NamedStatement;
  readonly #adapter: SqlAdapter;
  readonly #upserts = new Map<string, NamedStatement>();
  readonly #staged = new Map<string, StagedUpsert>();

  constructor(adapter: SqlAdapter) {
    this.#adapter = adapter;
    this.deadLetter = named(deadLetterUpsertSql(adapter));
    this.checkpointAdvance = named(checkpointAdvanceSql(adapter));
  }

  /** Records one upsert statement takes: any number with `unnest`, else as many as fit under the bind-parameter limit. */
  rowsPerStatement(table: StreamTable): number {
    if (this.#adapter.supportsUnnestUpsert || this.#adapter.supportsStagedUpsert === true) return Number.POSITIVE_INFINITY;
    return Math.max(1, Math.floor(this.#adapter.maxBindParameters / recordColumns(table).length));
  }

  /**
   * Upserts `records` in one statement (or, where the executor offers `runEach`, one prepared
   * one-row statement per record); resolves with the rows inserted or changed. `rawTexts[i]`,
   * when given, is `records[i].raw` as JSON text already (the managed sink made it once).
   */
  async runUpsert(executor: SqlExecutor, table: StreamTable, records: readonly SyncRecord[], now: string, rawTexts?: readonly string[]): Promise<number> {
    if (this.#adapter.supportsStagedUpsert === true) {
      await this.openStage(executor, table);
      await this.appendToStage(executor, table, records, now, rawTexts);
      return this.mergeStage(executor, table);
    }
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

  /**
   * Staged adapters: creates the table's temporary staging table afresh on the transaction's
   * connection (named by the table and its columns, so a column added later gets a new one), ready
   * for {@link appendToStage}. Replaced rather than emptied: DuckDB keeps deleted rows of a
   * temporary table in memory, which a long backfill would accumulate.
   */
  async openStage(executor: SqlExecutor, table: StreamTable): Promise<void> {
    await executor.run(this.#stagedUpsert(table).create, []);
  }

  /** Appends `records` to the staging table through the driver's bulk path; a refused value appends none of them. */
  appendToStage(executor: SqlExecutor, table: StreamTable, records: readonly SyncRecord[], now: string, rawTexts?: readonly string[]): Promise<void> {
    if (executor.append === undefined) throw new Error('the adapter stages upserts but its driver offers no append');
    return executor.append(this.#stagedUpsert(table).stage, rowValues(table, records, now, rawTexts));
  }

  /** Merges the staging table into the stream table in one statement; resolves with the rows inserted or changed. */
  mergeStage(executor: SqlExecutor, table: StreamTable): Promise<number> {
    return executor.run(this.#stagedUpsert(table).merge, []);
  }

  /**
   * Upserts `records` through the driver's `stage` (Postgres: COPY into a temporary table of the
   * connection, named by the table's columns and types) and one merge from it, in the open
   * transaction; resolves with the rows inserted or changed.
   */
  async runStaged(executor: SqlExecutor, table: StreamTable, records: readonly SyncRecord[], now: string, rawTexts?: readonly string[]): Promise<number> {
    if (executor.stage === undefined) throw new Error('the driver offers no stage');
    const staged = this.#stagedUpsert(table);
    await executor.stage(staged.staging, rowValues(table, records, now, rawTexts));
    const { text, name } = this.#upsert(table, 'staged', () => staged.merge);
    return executor.run(text, [], name);
  }

  /**
   * Inserts `records` through the driver's `insert` (Postgres: COPY straight into the stream
   * table), in the open transaction; resolves with the rows inserted, all of them. A record whose
   * key is stored already fails it (the adapter's `isDuplicateKey`).
   */
  runInsert(executor: SqlExecutor, table: StreamTable, records: readonly SyncRecord[], now: string, rawTexts?: readonly string[]): Promise<number> {
    if (executor.insert === undefined) throw new Error('the driver offers no insert');
    const target = { table: qualifiedTable(this.#adapter, table.table), columns: recordColumns(table).map(quoteIdentifier) };
    return executor.insert(target, rowValues(table, records, now, rawTexts));
  }

  #stagedUpsert(table: StreamTable): StagedUpsert {
    const key = `${table.table}/${table.columns.map((column) => `${column.name}:${column.type}`).join(',')}`;
    let staged = this.#staged.get(key);
    if (staged === undefined) {
      if (this.#staged.size >= MAX_CACHED_UPSERTS) this.#staged.clear();
      const stage = `callsync_stage_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
      const columns = recordColumns(table).map(quoteIdentifier).join(', ');
      const types = recordTypes(this.#adapter, table);
      staged = {
        stage,
        create: `create or replace temp table ${quoteIdentifier(stage)} as select ${columns} from ${qualifiedTable(this.#adapter, table.table)} limit 0`,
        merge: recordStagedUpsertSql(this.#adapter, table, stage),
        staging: { name: stage, columns: recordColumns(table).map((name, index) => ({ name: quoteIdentifier(name), type: types[index] as string })) },
      };
      this.#staged.set(key, staged);
    }
    return staged;
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
