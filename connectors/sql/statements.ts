import { createHash } from 'node:crypto';
import type { StreamTable, SyncRecord } from '../../src/sink.js';
import { qualifiedTable, quoteIdentifier } from './schema.js';
import type { SqlAdapter, SqlExecutor } from './sql-dialect.js';

/** The SQL text of the write path, built once per table and kept prepared by name. */

/** Column order of a record row, matching the parameters {@link StatementCache.runUpsert} produces. */
export function recordColumns(table: StreamTable): string[] {
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
  const types = ['text', 'text', 'text', ...table.columns.map((column) => adapter.columnType(column.type)), adapter.jsonType, adapter.timestampType];
  const arrays = types.map((type, index) => `${adapter.placeholder(index + 1)}::${type}[]`);
  const updated = columns.slice(2);
  const row = (prefix: string) => `(${updated.slice(0, -1).map((column) => `${prefix}.${column}`).join(', ')})`;
  return (
    `insert into ${qualifiedTable(adapter, table.table)} as t (${columns.join(', ')}) ` +
    `select * from unnest(${arrays.join(', ')}) as u(${columns.join(', ')}) ${onConflict(updated, adapter.differs(row('t'), row('excluded')))}`
  );
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

/** SQL text and its prepared-statement name. */
export interface NamedStatement {
  readonly text: string;
  /** Derived from the text, so one name never stands for two texts on a connection. */
  readonly name: string;
}

function named(text: string): NamedStatement {
  return { text, name: `callsync_${createHash('sha256').update(text).digest('hex').slice(0, 32)}` };
}

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
   * one-row statement per record); resolves with the rows inserted or changed.
   */
  runUpsert(executor: SqlExecutor, table: StreamTable, records: readonly SyncRecord[], now: string): Promise<number> {
    if (this.#adapter.supportsUnnestUpsert) {
      const { text, name } = this.#upsert(table, 'unnest', () => recordUnnestUpsertSql(this.#adapter, table));
      return executor.run(text, columnParameters(table, records, now), name);
    }
    if (executor.runEach !== undefined) {
      const { text } = this.#upsert(table, '1', () => recordUpsertSql(this.#adapter, table, 1));
      const names = table.columns.map((column) => column.name);
      return executor.runEach(text, records.map((record) => recordRow(names, record, now)));
    }
    const { text, name } = this.#upsert(table, String(records.length), () => recordUpsertSql(this.#adapter, table, records.length));
    return executor.run(text, rowParameters(table, records, now), name);
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
 * Row after row, matching a VALUES list. Indexed loops into a presized array: this runs once a
 * page, too rarely for the optimizer, and `for…of` there allocated an iterator result per value.
 */
function rowParameters(table: StreamTable, records: readonly SyncRecord[], now: string): unknown[] {
  const names = table.columns.map((column) => column.name);
  const parameters = new Array<unknown>(records.length * (names.length + 5));
  let at = 0;
  for (let row = 0; row < records.length; row++) {
    const record = records[row] as SyncRecord;
    parameters[at++] = record.businessId;
    parameters[at++] = record.id;
    parameters[at++] = record.source;
    for (let column = 0; column < names.length; column++) parameters[at++] = record.fields[names[column] as string] ?? null;
    parameters[at++] = JSON.stringify(record.raw);
    parameters[at++] = now;
  }
  return parameters;
}

/** One record's parameters, matching a one-row VALUES list. */
function recordRow(names: readonly string[], record: SyncRecord, now: string): unknown[] {
  const row = new Array<unknown>(names.length + 5);
  row[0] = record.businessId;
  row[1] = record.id;
  row[2] = record.source;
  for (let column = 0; column < names.length; column++) row[column + 3] = record.fields[names[column] as string] ?? null;
  row[names.length + 3] = JSON.stringify(record.raw);
  row[names.length + 4] = now;
  return row;
}

/** One array per column, matching `unnest`. */
function columnParameters(table: StreamTable, records: readonly SyncRecord[], now: string): unknown[][] {
  const fields = table.columns.map((column) => records.map((record) => record.fields[column.name] ?? null));
  return [
    records.map((record) => record.businessId),
    records.map((record) => record.id),
    records.map((record) => record.source),
    ...fields,
    records.map((record) => JSON.stringify(record.raw)),
    records.map(() => now),
  ];
}
