import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { sqliteSinkFactory } from '../../../connectors/sqlite/index.js';
import { voicemailRecord } from './fixtures.js';
import { integerColumns, toStoredRow } from './sql-rows.js';
import { breakSqliteCheckpoints, withSqlite } from './sqlite-file.js';
import { describeSinkConformance } from './suite.js';

describeSinkConformance({
  name: 'sqlite',
  deliveredBeforeCommit: false,
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'callsync-sink-'));
    // A missing parent directory is part of the contract: the sink creates it.
    const path = join(dir, 'data', 'callsync.db');
    const sink = await sqliteSinkFactory.create({ type: 'sqlite', path }, { logger: pino({ level: 'silent' }) });
    return {
      sink,
      readRows: (table, businessId) =>
        Promise.resolve(
          withSqlite(path, (db) =>
            db
              .prepare<[string], Record<string, unknown>>(`select * from "${table.table}" where business_id = ? and deleted_at is null order by id`)
              .all(businessId)
              .map((row) => toStoredRow(row, table, integerColumns(table))),
          ),
        ),
      readDeleted: (table, businessId) =>
        Promise.resolve(
          withSqlite(path, (db) =>
            db
              .prepare<[string], { id: string }>(`select id from "${table.table}" where business_id = ? and deleted_at is not null order by id`)
              .all(businessId)
              .map((row) => row.id),
          ),
        ),
      rejectableRecord: (businessId) => ({
        record: voicemailRecord(businessId, 'v2', { duration_seconds: 'forty-two' }),
        reason: /cannot store TEXT value in INTEGER column/,
      }),
      breakCheckpoints: () => breakSqliteCheckpoints(path),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
});
