import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createSink, type SinkConfig } from '../../../connectors/registry.js';
import { sinkMigrator } from '../../../connectors/sql/migrations.js';
import { createStreamTable } from '../../../connectors/sql/schema.js';
import { freshSqlConfig, querySql } from '../../support/sql-store-fixtures.js';
import type { StreamTable } from '../../../src/sink/sink.js';
import { builtinStreams } from '../../../src/source/streams/builtin-streams.js';
import { openSqlStoreParts } from './old-database.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** A custom stream's table the database had before this release, no longer in the config. */
const OLD_CUSTOM: StreamTable = { stream: 'sms', table: 'sms', columns: [{ name: 'body', type: 'text' }] };
/** A custom stream's table created by this release's `prepare`. */
const NEW_CUSTOM: StreamTable = { stream: 'texts', table: 'texts', columns: [{ name: 'body', type: 'text' }] };

/** A database as the release before migration 006 left it: migrated to 005, with a custom table. */
async function databaseBefore006(config: SinkConfig): Promise<void> {
  const { adapter, driver } = openSqlStoreParts(config);
  try {
    const { error } = await sinkMigrator(driver.db, adapter).migrateTo('005_report_views');
    if (error !== undefined) throw new Error('migrating to 005 failed', { cause: error });
    await createStreamTable(driver.db, adapter, OLD_CUSTOM);
  } finally {
    await driver.destroy();
  }
}

/** Table → the columns of each index naming `deleted_at`, read from the database's own catalogue. */
async function deletedAtIndexes(config: SinkConfig): Promise<Record<string, string[]>> {
  const rows =
    config.type === 'sqlite'
      ? await querySql(config, () => [`select tbl_name as "table", sql as definition from sqlite_master where type = 'index' and sql like '%deleted_at%'`])
      : config.type === 'postgres'
        ? await querySql(config, () => [
            `select tablename as "table", indexdef as definition from pg_indexes where schemaname = '${config.schema}' and indexdef like '%deleted_at%'`,
          ])
        : [];
  const found: Record<string, string[]> = {};
  for (const row of rows) (found[String(row.table)] ??= []).push(/\(([^)]*)\)\s*$/.exec(String(row.definition))?.[1]?.replaceAll('"', '') ?? '');
  return found;
}

describe.each(['sqlite', 'postgres'] as const)('%s: deleted_at is indexed', (dialect) => {
  it('on every table that has it: built-in tables and custom tables of an older database, and a custom table created now', async () => {
    const config = await freshSqlConfig(dialect, cleanups);
    await databaseBefore006(config);
    expect(await deletedAtIndexes(config)).toEqual({});
    const sink = await createSink(config, { logger: pino({ level: 'silent' }) });
    try {
      await sink.prepare([builtinStreams.get('calls')!.table, NEW_CUSTOM]);
    } finally {
      await sink.close();
    }
    const both = ['business_id, deleted_at'];
    expect(await deletedAtIndexes(config)).toEqual({ calls: both, voicemails: both, numbers: both, sms: both, texts: both });
    if (config.type === 'sqlite') {
      // The count of a business's stored records reads the index alone.
      const plan = await querySql(config, () => [`explain query plan select count(*) from calls where business_id = 'b' and deleted_at is null`]);
      expect(plan.map((row) => String(row.detail)).join('; ')).toContain('USING COVERING INDEX calls_deleted_at_idx');
    }
  });
});
