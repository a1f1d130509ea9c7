import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { openObjectStore, type ObjectStoreConfig } from '../../../connectors/object-storage/index.js';
import { parquetConfigSchema, parquetSinkFactory } from '../../../connectors/parquet/index.js';
import type { ColumnValue, Json, StreamTable } from '../../../src/sink/sink.js';
import { downloadObjects, readMirror, removeCopy, type MirrorRow } from '../../support/parquet-lake.js';
import { S3_TEST_CREDENTIALS, startS3Server, type TestS3Server } from '../../support/s3-server.js';
import { voicemailRecord } from './fixtures.js';
import { breakSqliteCheckpoints } from './sqlite-file.js';
import { describeSinkConformance, type StoredRow, type SinkUnderTest } from './suite.js';

// The files are written before the state store commits the checkpoint (deliveredBeforeCommit); the
// suite reads them back with the documented mirror query, through DuckDB's read_parquet.

/**
 * Without `syncedAt`: a row's `synced_at` is when its version was written, and a replayed flush
 * rewrites its file (same name, same content, new versions), so it moves where nothing else does.
 */
function storedRow(row: MirrorRow, table: StreamTable): StoredRow {
  const fields: Record<string, ColumnValue> = {};
  for (const column of table.columns) {
    const value = row[column.name] ?? null;
    fields[column.name] = typeof value === 'boolean' ? Number(value) : value;
  }
  return {
    businessId: String(row.business_id),
    id: String(row.id),
    source: String(row.source),
    fields,
    raw: JSON.parse(String(row.raw)) as Json,
  };
}

async function parquetUnderTest(storage: ObjectStoreConfig, dir: string, cleanup: () => Promise<void>): Promise<SinkUnderTest> {
  const statePath = join(dir, 'state', 'parquet-state.db');
  const config = parquetConfigSchema.parse({ type: 'parquet', storage, state: { type: 'sqlite', path: statePath } });
  const sink = await parquetSinkFactory.create(config, { logger: pino({ level: 'silent' }) });
  const reader = await openObjectStore(storage);
  const mirror = async (table: StreamTable, where: string): Promise<MirrorRow[]> => {
    const copy = await downloadObjects(reader);
    try {
      return await readMirror(copy, table, where);
    } finally {
      await removeCopy(copy);
    }
  };
  return {
    sink,
    readRows: async (table, businessId) => (await mirror(table, `business_id = '${businessId}' AND deleted_at IS NULL`)).map((row) => storedRow(row, table)),
    readDeleted: async (table, businessId) => (await mirror(table, `business_id = '${businessId}' AND deleted_at IS NOT NULL`)).map((row) => String(row.id)),
    rejectableRecord: (businessId) => ({
      record: voicemailRecord(businessId, 'v2', { created_at: 'not a date' }),
      reason: /^created_at: "not a date" is not a valid timestamp$/,
    }),
    // The file is stored, then the state store fails to take the checkpoint.
    breakCheckpoints: () => breakSqliteCheckpoints(statePath),
    async cleanup() {
      await reader.close();
      await cleanup();
    },
  };
}

describeSinkConformance({
  name: 'parquet (local folder)',
  deliveredBeforeCommit: true,
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'callsync-parquet-sink-'));
    return parquetUnderTest({ type: 'folder', path: join(dir, 'lake') }, dir, () => rm(dir, { recursive: true, force: true }));
  },
});

describeSinkConformance({
  name: 'parquet (S3-compatible)',
  deliveredBeforeCommit: true,
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'callsync-parquet-s3-sink-'));
    const server: TestS3Server = await startS3Server();
    await server.createBucket('lake');
    const storage = { type: 's3', bucket: 'lake', prefix: 'callsync', endpoint: server.endpoint, forcePathStyle: true, ...S3_TEST_CREDENTIALS } as const;
    return parquetUnderTest(parquetConfigSchema.shape.storage.parse(storage), dir, async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    });
  },
});
