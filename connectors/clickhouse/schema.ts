import { RESERVED_COLUMNS, type StreamTable } from '../../src/sink/sink.js';
import { assertStreamTable } from '../sql/schema.js';
import type { ClickHouseConnection } from './client.js';
import { clickhouseColumnType, qualified, quoteName, quoteString } from './mapping.js';

/**
 * What the sink creates: the database, `sync_state`, `dead_letters` and one table per stream,
 * every one a ReplacingMergeTree whose newest `version` per key is the current row. Only syntax
 * ClickHouse 18.16 also has: `ENGINE = ReplacingMergeTree(version) ORDER BY (…)`, no partitions
 * (FINAL replaces rows within a partition only), `Nullable`, `DateTime('UTC')`.
 */

const ENGINE = 'ENGINE = ReplacingMergeTree(version)';
const UTC = "DateTime('UTC')";

function bookkeepingTables(database: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${qualified(database, 'sync_state')} (business_id String, stream String, position String, ` +
      `records_synced UInt64, updated_at ${UTC}, version UInt64) ${ENGINE} ORDER BY (business_id, stream)`,
    `CREATE TABLE IF NOT EXISTS ${qualified(database, 'dead_letters')} (id UInt64, business_id String, stream String, fingerprint String, ` +
      `reason String, raw String, first_seen_at ${UTC}, last_seen_at ${UTC}, attempts UInt32, removed UInt8, version UInt64) ` +
      `${ENGINE} ORDER BY (business_id, stream, fingerprint)`,
  ];
}

/** The fixed columns after the stream's own, besides `business_id`, `id` and `source` before them. */
const TRAILING_COLUMNS = `raw String, synced_at ${UTC}, deleted_at Nullable(${UTC}), version UInt64`;

function streamTableSql(database: string, table: StreamTable): string {
  const columns = table.columns.map((column) => `${quoteName(column.name)} ${clickhouseColumnType(column.type)}`);
  return (
    `CREATE TABLE IF NOT EXISTS ${qualified(database, table.table)} (business_id String, id String, source String, ` +
    `${columns.map((column) => `${column}, `).join('')}${TRAILING_COLUMNS}) ${ENGINE} ORDER BY (business_id, id)`
  );
}

/** Creates the database and the bookkeeping tables when missing. */
export async function migrate(connection: ClickHouseConnection, database: string): Promise<void> {
  await connection.command(`CREATE DATABASE IF NOT EXISTS ${quoteName(database)}`);
  for (const statement of bookkeepingTables(database)) await connection.command(statement);
}

/**
 * Creates the stream tables that are missing and adds the columns an existing one lacks (a
 * stream that grew a field, a column newly declared in `columns:`); never drops or retypes one.
 * Rows stored before a column was added keep null there until they are written again.
 */
export async function prepareStreamTables(connection: ClickHouseConnection, database: string, tables: readonly StreamTable[]): Promise<void> {
  for (const table of tables) {
    assertStreamTable(table);
    await connection.command(streamTableSql(database, table));
    const present = await connection.select<{ name: string }>(
      `SELECT name FROM system.columns WHERE database = ${quoteString(database)} AND table = ${quoteString(table.table)}`,
    );
    const have = new Set(present.map((row) => row.name));
    for (const column of table.columns) {
      if (have.has(column.name) || RESERVED_COLUMNS.has(column.name)) continue;
      await connection.command(`ALTER TABLE ${qualified(database, table.table)} ADD COLUMN ${quoteName(column.name)} ${clickhouseColumnType(column.type)}`);
    }
  }
}
