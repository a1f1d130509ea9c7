import { Migrator, sql } from 'kysely';
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import { callColumns, numberColumns, voicemailColumns } from '../../src/normalize/columns.js';
import type { StreamTable } from '../../src/sink.js';
import type { SqlAdapter } from './sql-dialect.js';

/** What the database looks like: identifiers, the bookkeeping tables, stream tables and the migrations that create them. */

/** SQL identifiers we create: lower-case, Postgres' 63-byte limit, so they never need escaping. */
export const IDENTIFIER_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** Columns every stream table has; a stream may not declare them again. */
export const RESERVED_COLUMNS: ReadonlySet<string> = new Set(['business_id', 'id', 'source', 'raw', 'synced_at', 'deleted_at']);

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

/**
 * Tables of the built-in streams, created by migration `002_built_in_stream_tables` with the
 * normalizers' columns; a column added there later reaches existing tables through `prepare`.
 */
export const builtInTables: readonly StreamTable[] = Object.freeze([
  { stream: 'calls', table: 'calls', columns: callColumns },
  { stream: 'voicemails', table: 'voicemails', columns: voicemailColumns },
  { stream: 'numbers', table: 'numbers', columns: numberColumns },
]);

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
  let builder = db.schema
    .createTable(table.table)
    .ifNotExists()
    .addColumn('business_id', 'text', (column) => column.notNull())
    .addColumn('id', 'text', (column) => column.notNull())
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
    const wanted = [...table.columns.map((column) => ({ name: column.name, type: adapter.columnType(column.type) })), { name: 'deleted_at', type: adapter.timestampType }];
    for (const column of wanted.filter((candidate) => !present.has(candidate.name))) {
      await db.schema.alterTable(table.table).addColumn(column.name, sql.raw(column.type)).execute();
    }
  }
}

/**
 * The versioned schema, in code so the build ships no migration files. Names sort in run order;
 * a released migration never changes, a new one is appended.
 */
class SinkMigrationProvider implements MigrationProvider {
  readonly #adapter: SqlAdapter;

  constructor(adapter: SqlAdapter) {
    this.#adapter = adapter;
  }

  getMigrations(): Promise<Record<string, Migration>> {
    const adapter = this.#adapter;
    return Promise.resolve({
      '001_sync_state_and_dead_letters': { up: (db: Kysely<unknown>) => createBookkeeping(db, adapter) },
      '002_built_in_stream_tables': {
        up: async (db: Kysely<unknown>) => {
          for (const table of builtInTables) await createStreamTable(db, adapter, table);
        },
      },
      // 002 creates the column on fresh databases (it shares createStreamTable); older ones get it here.
      '003_deleted_at': { up: (db: Kysely<unknown>) => addMissingColumns(db, adapter, builtInTables) },
    });
  }
}

async function createBookkeeping(db: Kysely<unknown>, adapter: SqlAdapter): Promise<void> {
  const json = sql.raw(adapter.jsonType);
  const timestamp = sql.raw(adapter.timestampType);
  const counter = sql.raw(adapter.counterType);
  const options = adapter.tableOptions === undefined ? sql`` : sql.raw(adapter.tableOptions);
  await db.schema
    .createTable('sync_state')
    .addColumn('business_id', 'text', (column) => column.notNull())
    .addColumn('stream', 'text', (column) => column.notNull())
    .addColumn('position', json, (column) => column.notNull())
    .addColumn('records_synced', counter, (column) => column.notNull().defaultTo(0))
    .addColumn('updated_at', timestamp, (column) => column.notNull())
    .addPrimaryKeyConstraint('sync_state_pkey', ['business_id', 'stream'])
    .modifyEnd(options)
    .execute();
  await db.schema
    .createTable('dead_letters')
    .addColumn('id', counter, (column) => adapter.identityColumn(column))
    .addColumn('business_id', 'text', (column) => column.notNull())
    .addColumn('stream', 'text', (column) => column.notNull())
    .addColumn('reason', 'text', (column) => column.notNull())
    // JSON text, not JSONB: a record Postgres refused as JSONB must still fit here.
    .addColumn('raw', 'text', (column) => column.notNull())
    .addColumn('fingerprint', 'text', (column) => column.notNull())
    .addColumn('first_seen_at', timestamp, (column) => column.notNull())
    .addColumn('last_seen_at', timestamp, (column) => column.notNull())
    .addColumn('attempts', counter, (column) => column.notNull().defaultTo(1))
    .addUniqueConstraint('dead_letters_fingerprint_key', ['business_id', 'stream', 'fingerprint'])
    .modifyEnd(options)
    .execute();
}

/** Brings the schema up to date; throws with the failing migration's name and cause. */
export async function migrateToLatest<DB>(db: Kysely<DB>, adapter: SqlAdapter): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: new SinkMigrationProvider(adapter),
    ...(adapter.schema === undefined ? {} : { migrationTableSchema: adapter.schema }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'bookkeeping';
    throw new Error(`sink migration ${failed} failed`, { cause: error });
  }
}
