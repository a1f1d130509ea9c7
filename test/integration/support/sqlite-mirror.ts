import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { Simulator, TruthRecord } from '../../../simulator/index.js';

/** A stored row as a warehouse user reads it: normalized columns, `raw` parsed back. */
export interface MirrorRow {
  readonly id: string;
  readonly fields: Record<string, unknown>;
  readonly raw: unknown;
}

const FIXED = new Set(['business_id', 'id', 'source', 'raw', 'synced_at']);

/** Reads a table's rows for one business from a SQLite sink file. */
export function readSqliteTable(databasePath: string, table: string, businessId: string): MirrorRow[] {
  const database = new Database(databasePath, { readonly: true });
  try {
    const rows = database.prepare(`select * from "${table}" where business_id = ? order by id`).all(businessId) as Array<Record<string, unknown>>;
    return rows.map((row) => ({
      id: String(row.id),
      fields: Object.fromEntries(Object.entries(row).filter(([column]) => !FIXED.has(column))),
      raw: JSON.parse(String(row.raw)) as unknown,
    }));
  } finally {
    database.close();
  }
}

export interface MirrorDiff {
  readonly missing: string[];
  readonly unexpected: string[];
  readonly different: Array<{ id: string; what: string }>;
}

/** How a sink's stored values compare with the truth's; SQLite's (the default) compares exactly. */
export interface MirrorComparison {
  readonly field: (stored: unknown, expected: string | number | null) => boolean;
  readonly raw: (stored: unknown, served: unknown) => boolean;
}

const EXACT: MirrorComparison = {
  field: (stored, expected) => stored === expected,
  raw: (stored, served) => JSON.stringify(stored) === JSON.stringify(served),
};

/** Compares stored rows with the simulator's truth: ids, every expected field, and `raw`. */
export function diffMirror(rows: readonly MirrorRow[], truth: readonly TruthRecord[], compare: MirrorComparison = EXACT): MirrorDiff {
  const stored = new Map(rows.map((row) => [row.id, row]));
  const expectedIds = new Set(truth.map((record) => record.id));
  const different: Array<{ id: string; what: string }> = [];
  for (const record of truth) {
    const row = stored.get(record.id);
    if (row === undefined) continue;
    for (const [field, value] of Object.entries(record.expected)) {
      if (!compare.field(row.fields[field], value))
        different.push({ id: record.id, what: `${field}: ${JSON.stringify(row.fields[field])} != ${JSON.stringify(value)}` });
    }
    if (!compare.raw(row.raw, record.raw)) different.push({ id: record.id, what: 'raw differs' });
  }
  return {
    missing: truth.filter((record) => !stored.has(record.id)).map((record) => record.id),
    unexpected: rows.filter((row) => !expectedIds.has(row.id)).map((row) => row.id),
    different,
  };
}

export type MirrorStream = 'calls' | 'voicemails' | 'numbers';

/** Diffs every business and stream of a SQLite sink against the simulator; all empty when equal. */
export function diffSqliteAgainstSimulator(
  databasePath: string,
  simulator: Simulator,
  streams: readonly MirrorStream[] = ['calls', 'voicemails', 'numbers'],
): Record<string, MirrorDiff> {
  const diffs: Record<string, MirrorDiff> = {};
  for (const business of simulator.businesses) {
    const truth = simulator.truth(business.name);
    for (const stream of streams) {
      diffs[`${business.name}/${stream}`] = diffMirror(readSqliteTable(databasePath, stream, business.name), truth[stream]);
    }
  }
  return diffs;
}

/** Counts for a failure message and a table: expected / found / missing / unexpected / different. */
export function summarizeDiffs(diffs: Record<string, MirrorDiff>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(diffs).map(([key, diff]) => [
      key,
      `missing ${diff.missing.length}, unexpected ${diff.unexpected.length}, different ${diff.different.length}${diff.different[0] ? ` (e.g. ${diff.different[0].id} ${diff.different[0].what})` : ''}`,
    ]),
  );
}

/** What {@link summarizeDiffs} says of a business × stream stored exactly as the truth. */
export const EXACT_MIRROR = 'missing 0, unexpected 0, different 0';

/** Expects the SQLite sink at `databasePath` to equal the simulator's truth record for record: every business, or those named. */
export function expectMirrorExact(databasePath: string, simulator: Simulator, businesses?: readonly string[]): void {
  for (const [key, summary] of Object.entries(summarizeDiffs(diffSqliteAgainstSimulator(databasePath, simulator)))) {
    if (businesses === undefined || businesses.some((business) => key.startsWith(`${business}/`))) expect(summary, key).toBe(EXACT_MIRROR);
  }
}

/** Live (not deleted) and deleted ids of a business in a SQLite mirror (calls unless `table` says); waits out a writer's lock. */
export function storedCalls(dbPath: string, business: string, table: 'calls' | 'numbers' = 'calls'): { live: string[]; deleted: string[] } {
  const db = new Database(dbPath, { readonly: true, timeout: 10_000 });
  try {
    const rows = db.prepare(`select id, deleted_at from ${table} where business_id = ? order by id`).all(business) as Array<{
      id: string;
      deleted_at: string | null;
    }>;
    return { live: rows.filter((r) => r.deleted_at === null).map((r) => r.id), deleted: rows.filter((r) => r.deleted_at !== null).map((r) => r.id) };
  } finally {
    db.close();
  }
}

/** Deletes calls from a SQLite mirror as an operator would by hand (no `deleted_at`, the rows are gone). */
export function deleteByHand(dbPath: string, business: string, ids: readonly string[]): void {
  const db = new Database(dbPath, { timeout: 10_000 });
  try {
    const remove = db.prepare('delete from calls where business_id = ? and id = ?');
    for (const id of ids) remove.run(business, id);
  } finally {
    db.close();
  }
}
