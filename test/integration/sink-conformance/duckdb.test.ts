import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { connectDuckDb, openDuckDbInstance } from '../../../connectors/duckdb/client.js';
import { duckdbSinkFactory } from '../../../connectors/duckdb/index.js';
import { voicemailRecord } from './fixtures.js';
import { toStoredRow } from './sql-rows.js';
import { describeSinkConformance } from './suite.js';

/** Runs `query` on a connection of its own to the file the sink holds (this process's shared DuckDB instance). */
async function query(path: string, text: string, parameters: string[] = []): Promise<Record<string, unknown>[]> {
  const instance = await openDuckDbInstance(path);
  const connection = await connectDuckDb(instance);
  try {
    return (await connection.runAndReadAll(text, parameters)).getRowObjectsJS();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describeSinkConformance({
  name: 'duckdb',
  deliveredBeforeCommit: false,
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'callsync-sink-'));
    // A missing parent directory is part of the contract: the sink creates it.
    const path = join(dir, 'data', 'callsync.duckdb');
    const sink = await duckdbSinkFactory.create({ type: 'duckdb', path }, { logger: pino({ level: 'silent' }) });
    return {
      sink,
      async readRows(table, businessId) {
        const rows = await query(path, `select * from "${table.table}" where business_id = $1 and deleted_at is null order by id`, [businessId]);
        return rows.map((row) => toStoredRow(row, table));
      },
      async readDeleted(table, businessId) {
        const rows = await query(path, `select id from "${table.table}" where business_id = $1 and deleted_at is not null order by id`, [businessId]);
        return rows.map((row) => String(row.id));
      },
      rejectableRecord: (businessId) => ({
        record: voicemailRecord(businessId, 'v2', { duration_seconds: 'forty-two' }),
        reason: /Could not convert string 'forty-two' to INT64/,
      }),
      // DuckDB has no triggers: the table moves aside behind a view of it, which reads but refuses every write.
      async breakCheckpoints() {
        await query(path, `alter table sync_state rename to sync_state_held; create view sync_state as select * from sync_state_held`);
        return async () => {
          await query(path, `drop view sync_state; alter table sync_state_held rename to sync_state`);
        };
      },
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
});
