import { createClient } from '@clickhouse/client';
import { pino } from 'pino';
import { clickhouseSinkFactory } from '../../../connectors/clickhouse/index.js';
import { decodeColumn } from '../../../connectors/clickhouse/mapping.js';
import type { ColumnValue, Json, StreamTable } from '../../../src/sink/sink.js';
import { clickhouseUrl, uniqueName } from '../services.js';
import { callsTable, smsTable, voicemailRecord, voicemailsTable } from './fixtures.js';
import { describeSinkConformance, type StoredRow } from './suite.js';

const server = new URL(clickhouseUrl).origin;

describeSinkConformance({
  name: 'clickhouse',
  // No transaction: the rows are acknowledged before the checkpoint is inserted.
  deliveredBeforeCommit: true,
  // A batch written again finds its rows stored with the same content and inserts none of them.
  targetCountsReplays: true,
  async create() {
    const database = uniqueName('sink');
    const sink = await clickhouseSinkFactory.create(
      { type: 'clickhouse', url: server, database, requestTimeoutMs: 30_000 },
      { logger: pino({ level: 'silent' }) },
    );
    const client = createClient({ url: server });
    const run = (query: string) => client.command({ query });
    // Every table's parts stay unmerged, so each read below relies on FINAL, as the docs' read query does.
    await sink.prepare([callsTable, voicemailsTable, smsTable]);
    for (const table of ['calls', 'voicemails', 'sms', 'sync_state', 'dead_letters']) await run(`SYSTEM STOP MERGES ${database}.${table}`);
    const read = async (table: StreamTable, businessId: string, deleted: boolean) => {
      const result = await client.query({
        query: `SELECT * FROM ${database}.${table.table} FINAL WHERE business_id = '${businessId}' AND deleted_at IS ${deleted ? 'NOT ' : ''}NULL ORDER BY id`,
        format: 'JSONEachRow',
      });
      return result.json<Record<string, unknown>>();
    };
    return {
      sink,
      async readRows(table, businessId) {
        return (await read(table, businessId, false)).map((row): StoredRow => ({
          businessId: String(row.business_id),
          id: String(row.id),
          source: String(row.source),
          fields: Object.fromEntries(table.columns.map((column): [string, ColumnValue] => [column.name, decodeColumn(column.type, row[column.name])])),
          raw: JSON.parse(String(row.raw)) as Json,
          syncedAt: String(row.synced_at),
        }));
      },
      async readDeleted(table, businessId) {
        return (await read(table, businessId, true)).map((row) => String(row.id));
      },
      rejectableRecord: (businessId) => ({
        record: voicemailRecord(businessId, 'v2', { created_at: '1969-12-31T23:59:59Z' }),
        reason: /^created_at: 1969-12-31T23:59:59Z is outside ClickHouse DateTime's range/,
      }),
      // The table checkpoints are written to (the Buffer in front of sync_state) is away: the rows' insert is acknowledged, the checkpoint's fails.
      async breakCheckpoints() {
        await run(`RENAME TABLE ${database}.sync_state_buffer TO ${database}.sync_state_away`);
        return async () => {
          await run(`RENAME TABLE ${database}.sync_state_away TO ${database}.sync_state_buffer`);
        };
      },
      async cleanup() {
        await run(`DROP DATABASE IF EXISTS ${database}`);
        await client.close();
      },
    };
  },
});
