import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { StreamTable } from '../../src/sink.js';
import { RESERVED_COLUMNS, assertIdentifier } from './identifiers.js';
import type { SqlFlavor } from './sql-flavor.js';

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
export async function createStreamTable<DB>(db: Kysely<DB>, flavor: SqlFlavor, table: StreamTable): Promise<void> {
  assertStreamTable(table);
  let builder = db.schema
    .createTable(table.table)
    .ifNotExists()
    .addColumn('business_id', 'text', (column) => column.notNull())
    .addColumn('id', 'text', (column) => column.notNull())
    .addColumn('source', 'text', (column) => column.notNull());
  for (const column of table.columns) builder = builder.addColumn(column.name, sql.raw(flavor.columnType(column.type)));
  builder = builder
    .addColumn('raw', sql.raw(flavor.jsonType), (column) => column.notNull())
    .addColumn('synced_at', sql.raw(flavor.timestampType), (column) => column.notNull())
    .addPrimaryKeyConstraint(`${table.table}_pkey`, ['business_id', 'id']);
  if (flavor.tableOptions !== undefined) builder = builder.modifyEnd(sql.raw(flavor.tableOptions));
  await builder.execute();
}

/**
 * Adds the columns a stream declares that its existing table lacks (a stream that grew a field).
 * Never drops or retypes a column: warehouse users may depend on it.
 */
export async function addMissingColumns<DB>(db: Kysely<DB>, flavor: SqlFlavor, tables: readonly StreamTable[]): Promise<void> {
  if (tables.length === 0) return;
  const existing = await db.introspection.getTables();
  for (const table of tables) {
    const meta = existing.find((candidate) => candidate.name === table.table && (flavor.schema === undefined || candidate.schema === flavor.schema));
    if (meta === undefined) continue;
    const present = new Set(meta.columns.map((column) => column.name));
    for (const column of table.columns.filter((candidate) => !present.has(candidate.name))) {
      await db.schema.alterTable(table.table).addColumn(column.name, sql.raw(flavor.columnType(column.type))).execute();
    }
  }
}
