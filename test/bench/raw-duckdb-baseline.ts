import { DuckDBInstance, type DuckDBAppender } from '@duckdb/node-api';
import { RAW_COLUMNS, rawRow, rawWalk, type RawSource } from '../support/raw-walk.js';

// The connector's calls table as a fresh file gets it (migration 004 added the last four columns), its key and its deleted_at index.
const CALLS_DDL = `create table calls (
  business_id varchar not null, id varchar not null, source varchar not null,
  to_number varchar, from_number varchar, direction varchar, recording_url varchar, transcription_text varchar, created_at timestamptz,
  raw varchar not null, synced_at timestamptz not null, deleted_at timestamptz,
  duration_seconds bigint, status varchar, updated_at timestamptz, tracking_number_id varchar,
  constraint calls_pkey primary key (business_id, id));
  create index calls_deleted_at_idx on calls (business_id, deleted_at)`;

/** Made afresh per page, as the connector does (DuckDB keeps a temporary table's deleted rows in memory). */
const STAGE = `create or replace temp table stage as select ${RAW_COLUMNS.join(', ')} from calls limit 0`;

/** The merge the connector runs: insert, or update a row whose content differs. */
const MERGE =
  `insert into calls as t (${RAW_COLUMNS.join(', ')}) select ${RAW_COLUMNS.join(', ')} from stage on conflict (business_id, id) do update set ` +
  RAW_COLUMNS.slice(2)
    .map((column) => `${column} = excluded.${column}`)
    .join(', ') +
  ` where ${RAW_COLUMNS.slice(2)
    .filter((column) => column !== 'synced_at')
    .map((column) => `t.${column} is distinct from excluded.${column}`)
    .join(' or ')}`;

function append(appender: DuckDBAppender, row: (string | number | null)[]): void {
  for (const value of row) {
    if (value === null) appender.appendNull();
    else if (typeof value === 'number') appender.appendBigInt(BigInt(value));
    else appender.appendVarchar(value);
  }
  appender.endRow();
}

/**
 * DuckDB's own bulk path, hand-written: per page, one transaction that makes a temporary staging
 * table, fills it through the appender and merges it into the calls table in one statement. Same
 * table, rows and `raw` text as the connector; no checkpoint. Returns records per second.
 */
export async function rawDuckDbBaseline(path: string, source: RawSource): Promise<{ records: number; seconds: number }> {
  const started = performance.now();
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  let open = true;
  try {
    // The connector's settings: UTC, its default buffer pool, one thread.
    await connection.run(`set TimeZone = 'UTC'`);
    await connection.run(`set memory_limit = '128MB'`);
    await connection.run('set threads = 1');
    await connection.run(CALLS_DDL);
    const records = await rawWalk(source, async (calls) => {
      const now = new Date().toISOString();
      await connection.run('begin transaction');
      await connection.run(STAGE);
      const appender = await connection.createAppender('stage', 'main', 'temp');
      for (const call of calls) append(appender, rawRow(source.businessId, call, now));
      appender.closeSync();
      await connection.run(MERGE);
      await connection.run('commit');
    });
    // Timed with the close, as the pipeline's run is: closing checkpoints the WAL into the file.
    connection.closeSync();
    instance.closeSync();
    open = false;
    return { records, seconds: (performance.now() - started) / 1000 };
  } finally {
    if (open) {
      connection.closeSync();
      instance.closeSync();
    }
  }
}
