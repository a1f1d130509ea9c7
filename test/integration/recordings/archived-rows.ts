import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

/** An archived row of the archive's state table, with whether the CRM has had its link. */
export interface ArchivedRow {
  readonly business_id: string;
  readonly stream: string;
  readonly id: string;
  readonly recording_archive_key: string;
  readonly link_sent_at: string | null;
}

/** The archived rows of the `recordings` table in a SQLite `state:` database; none while no process has created it. */
export function archivedRows(statePath: string): ArchivedRow[] {
  if (!existsSync(statePath)) return [];
  const db = new Database(statePath, { readonly: true, timeout: 10_000 });
  try {
    const found = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'recordings'").get();
    if (found === undefined) return [];
    return db
      .prepare("select business_id, stream, id, recording_archive_key, link_sent_at from recordings where recording_state = 'archived'")
      .all() as ArchivedRow[];
  } finally {
    db.close();
  }
}
