import Database from 'better-sqlite3';
import { RAW_COLUMNS, rawRow, rawWalk, type RawSource } from '../support/raw-walk.js';

// The connector's calls table as a fresh file gets it (migration 004 added the last four columns).
const CALLS_DDL = `create table if not exists calls (
  business_id text not null, id text not null, source text not null,
  to_number text, from_number text, direction text, recording_url text, transcription_text text, created_at text,
  raw text not null, synced_at text not null, deleted_at text,
  duration_seconds integer, status text, updated_at text, tracking_number_id text,
  primary key (business_id, id)) strict`;

/**
 * Sets the connector's pragmas, creates the calls table and answers a page writer: one prepared
 * insert per row, one transaction per page.
 */
export function rawPageWriter(db: Database.Database): (rows: (string | number | null)[][]) => void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(CALLS_DDL);
  const insert = db.prepare(`insert into calls (${RAW_COLUMNS.join(', ')}) values (${RAW_COLUMNS.map(() => '?').join(', ')})`);
  return db.transaction((rows: (string | number | null)[][]) => {
    for (const row of rows) insert.run(row);
  });
}

/**
 * The hand-written floor for SQLite: the same table, columns and pragmas as the connector, one
 * prepared insert per row, one transaction per page. Returns records per second.
 */
export async function rawSqliteBaseline(path: string, source: RawSource): Promise<{ records: number; seconds: number }> {
  const started = performance.now();
  const db = new Database(path);
  try {
    const writePage = rawPageWriter(db);
    const records = await rawWalk(source, (calls) => {
      const now = new Date().toISOString();
      writePage(calls.map((call) => rawRow(source.businessId, call, now)));
    });
    // Timed with the close, as the pipeline's run is: closing checkpoints the WAL into the file.
    db.close();
    return { records, seconds: (performance.now() - started) / 1000 };
  } finally {
    if (db.open) db.close();
  }
}
