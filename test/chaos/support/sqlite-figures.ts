import Database from 'better-sqlite3';
import type { Simulator, Truth } from '../../../simulator/index.js';
import { diffMirror, readSqliteTable, type MirrorStream } from '../../integration/support/sqlite-mirror.js';
import type { CountedDiff } from './figures.js';

function counts(databasePath: string, table: string, business: string): { stored: number; distinct: number } {
  const database = new Database(databasePath, { readonly: true, timeout: 20_000 });
  try {
    const row = database.prepare(`select count(*) as stored, count(distinct id) as ids from "${table}" where business_id = ?`).get(business) as {
      stored: number;
      ids: number;
    };
    return { stored: row.stored, distinct: row.ids };
  } finally {
    database.close();
  }
}

/**
 * Diffs every (or the named) business × stream of a SQLite sink with row counts.
 * @param deadLettered `business/id` of truth records the scenario expects in `dead_letters`, not in their table
 */
export function diffSqlite(
  databasePath: string,
  simulator: Simulator,
  streams: readonly MirrorStream[] = ['calls', 'voicemails', 'numbers'],
  businesses: readonly string[] = simulator.businesses.map((business) => business.name),
  deadLettered: ReadonlySet<string> = new Set(),
): Record<string, CountedDiff> {
  const result: Record<string, CountedDiff> = {};
  for (const business of businesses) {
    const truth: Truth = simulator.truth(business);
    for (const stream of streams) {
      const storable = truth[stream].filter((record) => !deadLettered.has(`${business}/${record.id}`));
      result[`${business}/${stream}`] = {
        diff: diffMirror(readSqliteTable(databasePath, stream, business), storable),
        expected: storable.length,
        ...counts(databasePath, stream, business),
      };
    }
  }
  return result;
}

/** Rows stored in a table over all businesses; 0 while the file or table does not exist. */
export function countRows(databasePath: string, table: string): number {
  try {
    const database = new Database(databasePath, { readonly: true, fileMustExist: true, timeout: 20_000 });
    try {
      return (database.prepare(`select count(*) as n from "${table}"`).get() as { n: number }).n;
    } finally {
      database.close();
    }
  } catch {
    return 0;
  }
}
