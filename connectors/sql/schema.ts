import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { RESERVED_COLUMNS, type StreamTable } from '../../src/sink/sink.js';
import type { RawConversion, SqlAdapter } from './dialect.js';

/** What the database looks like: identifiers, the bookkeeping tables, stream tables and the migrations that create them. */

/** SQL identifiers we create: lower-case, Postgres' 63-byte limit, so they never need escaping. */
export const IDENTIFIER_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** Throws naming `what` unless `name` is a safe identifier; returns it for chaining. */
export function assertIdentifier(name: string, what: string): string {
  if (!IDENTIFIER_PATTERN.test(name)) {
    throw new Error(`${what} ${JSON.stringify(name)} is not a safe SQL identifier (${IDENTIFIER_PATTERN.source})`);
  }
  return name;
}

/** Quotes an identifier already checked by {@link assertIdentifier}; quoting also guards reserved words. */
export function quoteIdentifier(name: string): string {
  return `"${assertIdentifier(name, 'identifier')}"`;
}

/** `"schema"."table"` when the adapter has a schema, `"table"` otherwise. */
export function qualifiedTable(adapter: SqlAdapter, table: string): string {
  return adapter.schema === undefined ? quoteIdentifier(table) : `${quoteIdentifier(adapter.schema)}.${quoteIdentifier(table)}`;
}

/** Throws unless the table and its columns are safe identifiers that do not clash with the fixed columns. */
export function assertStreamTable(table: StreamTable): void {
  assertIdentifier(table.table, `table of stream ${JSON.stringify(table.stream)}`);
  const seen = new Set<string>();
  for (const column of table.columns) {
    assertIdentifier(column.name, `column of table ${table.table}`);
    if (RESERVED_COLUMNS.has(column.name) || seen.has(column.name)) {
      throw new Error(`table ${table.table} declares column ${column.name} twice or over a fixed column`);
    }
    seen.add(column.name);
  }
}

/** CREATE TABLE IF NOT EXISTS with the fixed columns, the stream's columns and the (business_id, id) key. */
export async function createStreamTable<DB>(db: Kysely<DB>, adapter: SqlAdapter, table: StreamTable): Promise<void> {
  assertStreamTable(table);
  const key = sql.raw(adapter.keyTextType ?? 'text');
  let builder = db.schema
    .createTable(table.table)
    .ifNotExists()
    .addColumn('business_id', key, (column) => column.notNull())
    .addColumn('id', key, (column) => column.notNull())
    .addColumn('source', 'text', (column) => column.notNull());
  for (const column of table.columns) builder = builder.addColumn(column.name, sql.raw(adapter.columnType(column.type)));
  builder = builder
    .addColumn('raw', sql.raw(adapter.jsonType), (column) => column.notNull())
    .addColumn('synced_at', sql.raw(adapter.timestampType), (column) => column.notNull())
    .addColumn('deleted_at', sql.raw(adapter.timestampType))
    .addPrimaryKeyConstraint(`${table.table}_pkey`, ['business_id', 'id']);
  if (adapter.tableOptions !== undefined) builder = builder.modifyEnd(sql.raw(adapter.tableOptions));
  await builder.execute();
}

/**
 * Adds the columns a stream declares that its existing table lacks (a stream that grew a field,
 * or a custom table created before `deleted_at` existed). Never drops or retypes a column:
 * warehouse users may depend on it.
 */
export async function addMissingColumns<DB>(db: Kysely<DB>, adapter: SqlAdapter, tables: readonly StreamTable[]): Promise<void> {
  if (tables.length === 0) return;
  const existing = await db.introspection.getTables();
  for (const table of tables) {
    const meta = existing.find((candidate) => candidate.name === table.table && (adapter.schema === undefined || candidate.schema === adapter.schema));
    if (meta === undefined) continue;
    const present = new Set(meta.columns.map((column) => column.name));
    const wanted = [
      ...table.columns.map((column) => ({ name: column.name, type: adapter.columnType(column.type) })),
      { name: 'deleted_at', type: adapter.timestampType },
    ];
    for (const column of wanted.filter((candidate) => !present.has(candidate.name))) {
      await db.schema.alterTable(table.table).addColumn(column.name, sql.raw(column.type)).execute();
    }
    const declared = table.columns.filter((column) => column.from !== undefined && !present.has(column.name));
    await fillFromRaw(
      db,
      adapter,
      table.table,
      declared.map((column) => ({ name: column.name, sources: [column.from ?? []], conversion: column.type })),
    );
  }
}

/**
 * The index name of `table`'s `deleted_at`: `<table>_deleted_at_idx`, within the 63-byte limit (a
 * long table name is cut and told apart by a hash of it).
 */
function deletedAtIndexName(table: string): string {
  const name = `${table}_deleted_at_idx`;
  return name.length <= 63 ? name : `${table.slice(0, 39)}_${createHash('sha256').update(table).digest('hex').slice(0, 8)}_deleted_at_idx`;
}

/**
 * Indexes `(business_id, deleted_at)` of each table: every read of stored records asks for one
 * business's rows that are (or are not) marked deleted, and the count reads the index alone.
 * Each table must have `deleted_at` (see {@link addMissingColumns}).
 */
export async function indexDeletedAt<DB>(db: Kysely<DB>, adapter: SqlAdapter, tables: readonly string[]): Promise<void> {
  const plain = adapter.isDuplicateIndex !== undefined;
  for (const table of tables) {
    const name = quoteIdentifier(deletedAtIndexName(assertIdentifier(table, 'table')));
    try {
      await sql.raw(`create index ${plain ? '' : 'if not exists '}${name} on ${qualifiedTable(adapter, table)} (business_id, deleted_at)`).execute(db);
    } catch (error) {
      if (!(adapter.isDuplicateIndex?.(error) ?? false)) throw error;
    }
  }
}

/** Creates the tables that are missing, adds the columns they lack and indexes their `deleted_at`. */
export async function prepareStreamTables<DB>(db: Kysely<DB>, adapter: SqlAdapter, tables: readonly StreamTable[]): Promise<void> {
  for (const table of tables) await createStreamTable(db, adapter, table);
  await addMissingColumns(db, adapter, tables);
  await indexDeletedAt(
    db,
    adapter,
    tables.map((table) => table.table),
  );
}

/** How {@link fillFromRaw} computes one column: the first of `sources` (paths into `raw`) that converts. */
interface RawFill {
  readonly name: string;
  readonly sources: readonly (readonly string[])[];
  readonly conversion: RawConversion;
}

/**
 * Fills columns of every stored row from its `raw`, in one UPDATE and without asking upstream:
 * how a column added to an existing table gets the values a sync would have written.
 * `synced_at` stays: the record itself did not change.
 */
export async function fillFromRaw<DB>(db: Kysely<DB>, adapter: SqlAdapter, table: string, columns: readonly RawFill[], where = ''): Promise<void> {
  if (columns.length === 0) return;
  const set = columns.map((column) => {
    const candidates = column.sources.map((path) => adapter.rawValue(path, column.conversion));
    const value = candidates.length === 1 ? candidates[0] : `coalesce(${candidates.join(', ')})`;
    return `${quoteIdentifier(column.name)} = ${value}`;
  });
  await sql.raw(`update ${qualifiedTable(adapter, table)} set ${set.join(', ')}${where === '' ? '' : ` where ${where}`}`).execute(db);
}
