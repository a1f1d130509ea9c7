import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';

/** How long schema changes wait for another writer of the file before giving up. */
export const SCHEMA_LOCK_TIMEOUT_MS = 60_000;
const RETRY_MS = 25;

/**
 * `BEGIN IMMEDIATE` without blocking the event loop. better-sqlite3 waits for a busy file by
 * sleeping the thread, so a second connection of this same process would stall the holder it
 * waits for; with busy_timeout 0 the wait is an async retry loop instead.
 * @param timeoutMs - gives up with SQLITE_BUSY after this long
 * @param busyTimeoutMs - the connection's busy_timeout, set again before returning
 */
export async function beginImmediate(raw: Database.Database, timeoutMs: number, busyTimeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  raw.pragma('busy_timeout = 0');
  try {
    for (;;) {
      try {
        raw.exec('begin immediate');
        return;
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error;
      }
      await sleep(RETRY_MS);
    }
  } finally {
    // Restored for the statements outside this helper (reads that meet a WAL checkpoint).
    raw.pragma(`busy_timeout = ${String(busyTimeoutMs)}`);
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}
