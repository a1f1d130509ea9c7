import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import type { RateWindow, Simulator } from '../../../simulator/index.js';
import { budgetUse, type BudgetUse } from '../../support/budget-use.js';
import { redisUrl } from '../services.js';

/**
 * Budget use while a business had backlog: the windows from the first to the last that took at
 * least half the limit (idle incremental polls before and after are not backlog), measured as the
 * bench measures it (partial first and last window left out, empty windows in between counted).
 */
export function backlogBudgetUse(sim: Simulator, business: string, limit: number, windowMs: number): BudgetUse {
  return budgetUse(backlogWindows(sim, business, limit), limit, windowMs);
}

/** The windows from the first to the last that took at least half the limit (those with no request are not listed). */
export function backlogWindows(sim: Simulator, business: string, limit: number): RateWindow[] {
  const windows = sim.counters().businesses[business]?.windows ?? [];
  const busy = (w: RateWindow): boolean => w.count >= limit / 2;
  const first = windows.findIndex(busy);
  return first < 0 ? [] : windows.slice(first, windows.findLastIndex(busy) + 1);
}

/** Total commands Redis has processed (all clients), from INFO commandstats. */
export async function redisCommandCount(): Promise<number> {
  const redis = new Redis(redisUrl);
  try {
    const info = await redis.info('commandstats');
    return [...info.matchAll(/calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  } finally {
    await redis.quit();
  }
}

/** Rows stored for a business's stream, and the count its checkpoint row says were synced. */
export function storedVersusCheckpoint(dbPath: string, business: string, stream: string): { rows: number; synced: number } {
  const db = new Database(dbPath, { readonly: true, timeout: 10_000 });
  try {
    const rows = db.prepare(`select count(*) as n from "${stream}" where business_id = ?`).get(business) as { n: number };
    const state = db.prepare('select records_synced as n from sync_state where business_id = ? and stream = ?').get(business, stream) as
      { n: number } | undefined;
    return { rows: rows.n, synced: state?.n ?? 0 };
  } finally {
    db.close();
  }
}

/** Opens read-only; undefined while the worker has not created the file yet. */
function open(dbPath: string): Database.Database | undefined {
  try {
    return new Database(dbPath, { readonly: true, fileMustExist: true, timeout: 10_000 });
  } catch {
    return undefined;
  }
}

export function hasCall(dbPath: string, business: string, id: string): boolean {
  const db = open(dbPath);
  if (db === undefined) return false;
  try {
    return db.prepare('select 1 from calls where business_id = ? and id = ?').get(business, id) !== undefined;
  } catch {
    return false;
  } finally {
    db.close();
  }
}

export function countRows(dbPath: string, table: string): number {
  const db = open(dbPath);
  if (db === undefined) return 0;
  try {
    return (db.prepare(`select count(*) as n from "${table}"`).get() as { n: number }).n;
  } catch {
    return 0;
  } finally {
    db.close();
  }
}
