import { RESERVED_COLUMNS, type StreamTable } from '../../src/sink/sink.js';
import { assertStreamTable } from '../sql/schema.js';
import type { ClickHouseConnection } from './client.js';
import { clickhouseColumnType, qualified, quoteName, quoteString } from './mapping.js';

/**
 * What the sink creates: the database, `sync_state`, `dead_letters` and one table per stream,
 * every one a ReplacingMergeTree whose newest `version` per key is the current row,
 * `sync_state_buffer`, the Buffer table checkpoints are written through, and the report views
 * over `calls`. Only syntax ClickHouse 18.16 also has: `ENGINE = ReplacingMergeTree(version)
 * ORDER BY (…)`, no partitions (FINAL replaces rows within a partition only), `Nullable`,
 * `DateTime('UTC')`, `Buffer(…)`, views with `FINAL`.
 */

const ENGINE = 'ENGINE = ReplacingMergeTree(version)';

/** The Buffer table checkpoints are written through and read from (see {@link syncStateBuffer}). */
export const SYNC_STATE_BUFFER = 'sync_state_buffer';
const UTC = "DateTime('UTC')";

const SYNC_STATE_COLUMNS = `(business_id String, stream String, position String, records_synced UInt64, updated_at ${UTC}, version UInt64)`;

/**
 * Where checkpoints are written: a Buffer in front of `sync_state`. A ReplacingMergeTree makes a
 * part of every insert (a directory of files per column), which for a one-row checkpoint cost
 * about as much as a 500-row page's insert; a Buffer insert lands in the server's memory and is
 * moved into `sync_state` as one part when 1 s and 100 rows (10 kB) have gathered, or after 5 s,
 * and reads of the Buffer see both. A server that stops uncleanly loses at most those seconds of
 * checkpoint moves: the checkpoint goes back, never ahead of the rows, and the pages after it are
 * fetched again and found stored. Arguments: database, table, layers, min/max seconds, rows, bytes.
 */
function syncStateBuffer(database: string): string {
  return `${SYNC_STATE_COLUMNS} ENGINE = Buffer(${quoteString(database)}, 'sync_state', 1, 1, 5, 100, 100000, 10000, 10000000)`;
}

function bookkeeping(database: string): Readonly<Record<string, string>> {
  return {
    sync_state: `${SYNC_STATE_COLUMNS} ${ENGINE} ORDER BY (business_id, stream)`,
    [SYNC_STATE_BUFFER]: syncStateBuffer(database),
    dead_letters:
      `(id UInt64, business_id String, stream String, fingerprint String, reason String, raw String, first_seen_at ${UTC}, ` +
      `last_seen_at ${UTC}, attempts UInt32, removed UInt8, version UInt64) ${ENGINE} ORDER BY (business_id, stream, fingerprint)`,
  };
}

/** The fixed columns after the stream's own, besides `business_id`, `id` and `source` before them. */
const TRAILING_COLUMNS = `raw String, synced_at ${UTC}, deleted_at Nullable(${UTC}), version UInt64`;

function streamTableColumns(table: StreamTable): string {
  const columns = table.columns.map((column) => `${quoteName(column.name)} ${clickhouseColumnType(column.type)}, `);
  return `(business_id String, id String, source String, ${columns.join('')}${TRAILING_COLUMNS}) ${ENGINE} ORDER BY (business_id, id)`;
}

/**
 * What is there already is read first and only what is missing is created: ClickHouse with
 * access control checks the right to `CREATE` before `IF NOT EXISTS`, so a user without it can
 * run against a database and tables made beforehand.
 */
async function existingTables(connection: ClickHouseConnection, database: string): Promise<Set<string>> {
  const rows = await connection.select<{ name: string }>(`SELECT name FROM system.tables WHERE database = ${quoteString(database)}`);
  return new Set(rows.map((row) => row.name));
}

async function createTable(connection: ClickHouseConnection, database: string, table: string, definition: string): Promise<void> {
  await connection.command(`CREATE TABLE IF NOT EXISTS ${qualified(database, table)} ${definition}`);
}

/** Creates the database and the bookkeeping tables when missing. */
export async function migrate(connection: ClickHouseConnection, database: string): Promise<void> {
  const [found] = await connection.select<{ n: string }>(`SELECT count() AS n FROM system.databases WHERE name = ${quoteString(database)}`);
  if (Number(found?.n ?? 0) === 0) await connection.command(`CREATE DATABASE IF NOT EXISTS ${quoteName(database)}`);
  const existing = await existingTables(connection, database);
  for (const [table, definition] of Object.entries(bookkeeping(database))) if (!existing.has(table)) await createTable(connection, database, table, definition);
}

/** The columns of `calls` the report views read (the builtin calls stream has them all). */
const REPORTED_COLUMNS = ['tracking_number_id', 'created_at', 'status', 'duration_seconds'];

/**
 * The SQL sinks' report views (docs/schema.md#report-views) over the current rows of `calls`:
 * `FINAL` gives each key's newest version, deleted ones left out. A null condition counts neither
 * way, as `case when` does in SQL, because 18.16's `countIf` of a null condition would be null.
 * `day` is the UTC day whatever the server's time zone.
 */
function reportViews(database: string): Readonly<Record<string, string>> {
  const calls = qualified(database, 'calls');
  const figures =
    "count() AS calls, countIf(ifNull(status = 'completed', 0)) AS answered, countIf(ifNull(status != 'completed', 0)) AS missed, " +
    'sum(ifNull(duration_seconds, 0)) AS talk_seconds';
  return {
    calls_daily:
      `AS SELECT business_id, tracking_number_id, toDate(created_at, 'UTC') AS day, ${figures} ` +
      `FROM ${calls} FINAL WHERE deleted_at IS NULL GROUP BY business_id, tracking_number_id, day`,
    calls_by_tracking_number:
      `AS SELECT business_id, tracking_number_id, ${figures}, min(created_at) AS first_call_at, max(created_at) AS last_call_at ` +
      `FROM ${calls} FINAL WHERE deleted_at IS NULL GROUP BY business_id, tracking_number_id`,
  };
}

async function createReportViews(connection: ClickHouseConnection, database: string, existing: ReadonlySet<string>): Promise<void> {
  for (const [view, definition] of Object.entries(reportViews(database)))
    if (!existing.has(view)) await connection.command(`CREATE VIEW IF NOT EXISTS ${qualified(database, view)} ${definition}`);
}

/**
 * Creates the stream tables that are missing and adds the columns an existing one lacks (a
 * stream that grew a field, a column newly declared in `columns:`); never drops or retypes one.
 * Rows stored before a column was added keep null there until they are written again. Once
 * `calls` has the columns they read, the report views are created when missing.
 */
export async function prepareStreamTables(connection: ClickHouseConnection, database: string, tables: readonly StreamTable[]): Promise<void> {
  const existing = await existingTables(connection, database);
  for (const table of tables) {
    assertStreamTable(table);
    if (!existing.has(table.table)) await createTable(connection, database, table.table, streamTableColumns(table));
    const present = await connection.select<{ name: string }>(
      `SELECT name FROM system.columns WHERE database = ${quoteString(database)} AND table = ${quoteString(table.table)}`,
    );
    const have = new Set(present.map((row) => row.name));
    for (const column of table.columns) {
      if (have.has(column.name) || RESERVED_COLUMNS.has(column.name)) continue;
      await connection.command(`ALTER TABLE ${qualified(database, table.table)} ADD COLUMN ${quoteName(column.name)} ${clickhouseColumnType(column.type)}`);
      have.add(column.name);
    }
    if (table.table === 'calls' && REPORTED_COLUMNS.every((column) => have.has(column))) await createReportViews(connection, database, existing);
  }
}
