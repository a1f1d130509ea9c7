import { Migrator, sql } from 'kysely';
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import { builtInTables } from './built-in-tables.js';
import type { SqlFlavor } from './sql-flavor.js';
import { createStreamTable } from './stream-table-ddl.js';

/**
 * The versioned schema, in code so the build ships no migration files. Names sort in run order;
 * a released migration never changes, a new one is appended.
 */
export class SinkMigrationProvider implements MigrationProvider {
  readonly #flavor: SqlFlavor;

  constructor(flavor: SqlFlavor) {
    this.#flavor = flavor;
  }

  getMigrations(): Promise<Record<string, Migration>> {
    const flavor = this.#flavor;
    return Promise.resolve({
      '001_sync_state_and_dead_letters': { up: (db: Kysely<unknown>) => createBookkeeping(db, flavor) },
      '002_built_in_stream_tables': {
        up: async (db: Kysely<unknown>) => {
          for (const table of builtInTables) await createStreamTable(db, flavor, table);
        },
      },
    });
  }
}

async function createBookkeeping(db: Kysely<unknown>, flavor: SqlFlavor): Promise<void> {
  const json = sql.raw(flavor.jsonType);
  const timestamp = sql.raw(flavor.timestampType);
  const counter = sql.raw(flavor.counterType);
  const options = flavor.tableOptions === undefined ? sql`` : sql.raw(flavor.tableOptions);
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
  const id =
    flavor.dialect === 'sqlite'
      ? db.schema.createTable('dead_letters').addColumn('id', 'integer', (column) => column.primaryKey().autoIncrement())
      : db.schema.createTable('dead_letters').addColumn('id', 'bigint', (column) => column.primaryKey().generatedAlwaysAsIdentity());
  await id
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
export async function migrateToLatest<DB>(db: Kysely<DB>, flavor: SqlFlavor): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: new SinkMigrationProvider(flavor),
    ...(flavor.schema === undefined ? {} : { migrationTableSchema: flavor.schema }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'bookkeeping';
    throw new Error(`sink migration ${failed} failed`, { cause: error });
  }
}
