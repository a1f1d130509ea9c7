import { Migrator, sql } from 'kysely';
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { StreamTable } from '../../src/sink/sink.js';
import { addMissingColumns, createStreamTable, fillFromRaw, indexDeletedAt, qualifiedTable } from './schema.js';
import type { SqlAdapter } from './dialect.js';

/**
 * The versioned schema, in code so the build ships no migration files. Names sort in run order;
 * a released migration never changes, a new one is appended. Column lists and field names are
 * therefore written out here as they were when each migration was released, not taken from the
 * normalizers: a migration that followed the code would create different tables on a fresh
 * database than it did on databases it already ran on.
 */

/** The built-in tables as migration 002 created them (tests write old databases from it). */
export const TABLES_002: readonly StreamTable[] = Object.freeze([
  {
    stream: 'calls',
    table: 'calls',
    columns: [
      { name: 'to_number', type: 'text' },
      { name: 'from_number', type: 'text' },
      { name: 'direction', type: 'text' },
      { name: 'recording_url', type: 'text' },
      { name: 'transcription_text', type: 'text' },
      { name: 'created_at', type: 'timestamp' },
    ],
  },
  {
    stream: 'voicemails',
    table: 'voicemails',
    columns: [
      { name: 'to_number', type: 'text' },
      { name: 'from_number', type: 'text' },
      { name: 'transcription_text', type: 'text' },
      { name: 'transcription_summary', type: 'text' },
      { name: 'recording_type', type: 'text' },
      { name: 'recording_url', type: 'text' },
      { name: 'api_recording_url', type: 'text' },
      { name: 'duration_seconds', type: 'integer' },
      { name: 'created_at', type: 'timestamp' },
    ],
  },
  { stream: 'numbers', table: 'numbers', columns: [{ name: 'number', type: 'text' }] },
]);

/** Migration 004: the v1 call fields that lived only in `raw`, with the field names v1 calls had then. */
const CALL_DETAILS_004 = Object.freeze({
  table: {
    stream: 'calls',
    table: 'calls',
    columns: [
      { name: 'duration_seconds', type: 'integer' },
      { name: 'status', type: 'text' },
      { name: 'updated_at', type: 'timestamp' },
      { name: 'tracking_number_id', type: 'text' },
    ],
  } satisfies StreamTable,
  fills: [
    { name: 'duration_seconds', conversion: 'duration', sources: [['duration_seconds'], ['duration'], ['call_duration'], ['talk_time'], ['duration_sec']] },
    { name: 'status', conversion: 'text', sources: [['status'], ['call_status'], ['disposition']] },
    { name: 'updated_at', conversion: 'timestamp', sources: [['updated_at'], ['modified_at'], ['last_updated_at'], ['call_updated_at']] },
    { name: 'tracking_number_id', conversion: 'text', sources: [['tracking_number_id'], ['tracking_id'], ['tracker_id'], ['call_tracking_number_id']] },
  ] as const,
});

/** Migration 005: the reporting views (docs/schema.md). Missed = any status but `completed`. */
async function createViews005(db: Kysely<unknown>, adapter: SqlAdapter): Promise<void> {
  const calls = qualifiedTable(adapter, 'calls');
  const figures =
    `count(*) as calls, ` +
    `sum(case when status = 'completed' then 1 else 0 end) as answered, ` +
    `sum(case when status <> 'completed' then 1 else 0 end) as missed, ` +
    `cast(coalesce(sum(duration_seconds), 0) as ${adapter.integerCastType ?? 'bigint'}) as talk_seconds`;
  const day = adapter.utcDay('created_at');
  await sql
    .raw(
      `create view ${qualifiedTable(adapter, 'calls_daily')} as select business_id, tracking_number_id, ${day} as day, ${figures} ` +
        `from ${calls} where deleted_at is null group by business_id, tracking_number_id, ${day}`,
    )
    .execute(db);
  await sql
    .raw(
      `create view ${qualifiedTable(adapter, 'calls_by_tracking_number')} as select business_id, tracking_number_id, ${figures}, ` +
        `min(created_at) as first_call_at, max(created_at) as last_call_at ` +
        `from ${calls} where deleted_at is null group by business_id, tracking_number_id`,
    )
    .execute(db);
}

async function createBookkeeping(db: Kysely<unknown>, adapter: SqlAdapter): Promise<void> {
  const json = sql.raw(adapter.jsonType);
  const timestamp = sql.raw(adapter.timestampType);
  const counter = sql.raw(adapter.counterType);
  const options = adapter.tableOptions === undefined ? sql`` : sql.raw(adapter.tableOptions);
  const key = sql.raw(adapter.keyTextType ?? 'text');
  const long = sql.raw(adapter.longTextType ?? 'text');
  await db.schema
    .createTable('sync_state')
    .addColumn('business_id', key, (column) => column.notNull())
    .addColumn('stream', key, (column) => column.notNull())
    .addColumn('position', json, (column) => column.notNull())
    .addColumn('records_synced', counter, (column) => column.notNull().defaultTo(0))
    .addColumn('updated_at', timestamp, (column) => column.notNull())
    .addPrimaryKeyConstraint('sync_state_pkey', ['business_id', 'stream'])
    .modifyEnd(options)
    .execute();
  await db.schema
    .createTable('dead_letters')
    .addColumn('id', counter, (column) => adapter.identityColumn(column))
    .addColumn('business_id', key, (column) => column.notNull())
    .addColumn('stream', key, (column) => column.notNull())
    .addColumn('reason', long, (column) => column.notNull())
    // JSON text, not JSONB: a record Postgres refused as JSONB must still fit here.
    .addColumn('raw', long, (column) => column.notNull())
    .addColumn('fingerprint', key, (column) => column.notNull())
    .addColumn('first_seen_at', timestamp, (column) => column.notNull())
    .addColumn('last_seen_at', timestamp, (column) => column.notNull())
    .addColumn('attempts', counter, (column) => column.notNull().defaultTo(1))
    .addUniqueConstraint('dead_letters_fingerprint_key', ['business_id', 'stream', 'fingerprint'])
    .modifyEnd(options)
    .execute();
}

/** Migration 006: the `deleted_at` index of every table that has the column (custom stream tables too). */
async function indexDeletedAt006(db: Kysely<unknown>, adapter: SqlAdapter): Promise<void> {
  const tables = (await db.introspection.getTables())
    .filter((table) => !table.isView && (adapter.schema === undefined || table.schema === adapter.schema))
    .filter((table) => table.columns.some((column) => column.name === 'deleted_at'));
  await indexDeletedAt(
    db,
    adapter,
    tables.map((table) => table.name),
  );
}

/** Every migration in run order; the test of upgrades runs a prefix of them. */
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
          for (const table of TABLES_002) await createStreamTable(db, adapter, table);
        },
      },
      // 002 creates the column on fresh databases (it shares createStreamTable); older ones get it here.
      '003_deleted_at': { up: (db: Kysely<unknown>) => addMissingColumns(db, adapter, TABLES_002) },
      // v2 calls carry none of these fields (spec 2.2), so only v1 rows are filled.
      '004_call_details': {
        up: async (db: Kysely<unknown>) => {
          await addMissingColumns(db, adapter, [CALL_DETAILS_004.table]);
          await fillFromRaw(db, adapter, 'calls', CALL_DETAILS_004.fills, `source = 'v1'`);
        },
      },
      '005_report_views': { up: (db: Kysely<unknown>) => createViews005(db, adapter) },
      '006_deleted_at_index': { up: (db: Kysely<unknown>) => indexDeletedAt006(db, adapter) },
    });
  }
}

/** The kysely migrator of the sink's schema (history table in the adapter's schema). */
export function sinkMigrator<DB>(db: Kysely<DB>, adapter: SqlAdapter): Migrator {
  return new Migrator({
    db,
    provider: new SinkMigrationProvider(adapter),
    ...(adapter.schema === undefined ? {} : { migrationTableSchema: adapter.schema }),
  });
}

/** Brings the schema up to date; throws with the failing migration's name and cause. */
export async function migrateToLatest<DB>(db: Kysely<DB>, adapter: SqlAdapter): Promise<void> {
  const { error, results } = await sinkMigrator(db, adapter).migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'bookkeeping';
    throw new Error(`sink migration ${failed} failed`, { cause: error });
  }
}
