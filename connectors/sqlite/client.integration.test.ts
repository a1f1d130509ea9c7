import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteDriver, type SqliteDriver } from './client.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function freshDriver(busyTimeoutMs: number): { driver: SqliteDriver; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'callsync-sqlite-driver-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'sink.db');
  const driver = openSqliteDriver({ type: 'sqlite', path, busyTimeoutMs });
  cleanups.push(() => driver.destroy());
  return { driver, path };
}

async function busyTimeout(driver: SqliteDriver): Promise<number> {
  const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(driver.db);
  return Number(rows[0]?.timeout);
}

describe('SQLite driver', () => {
  it("waits for another connection's write lock without blocking the event loop, then restores the configured busy timeout", async () => {
    const { driver, path } = freshDriver(4_000);
    await sql`create table t (n integer)`.execute(driver.db);
    const other = new Database(path);
    cleanups.push(() => void other.close());
    other.exec('begin immediate');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    cleanups.push(() => clearInterval(ticker));
    setTimeout(() => other.exec('commit'), 300);
    const written = await driver.transaction((executor) => executor.run('insert into t (n) values (?)', [1]));
    expect(written).toBe(1);
    // The timers ran while the transaction waited: the wait was an async retry, not a sleeping thread.
    expect(ticks).toBeGreaterThan(3);
    expect(await busyTimeout(driver)).toBe(4_000);
    expect(await driver.transaction((executor) => executor.run('insert into t (n) values (?)', [2]))).toBe(1);
    expect(await busyTimeout(driver)).toBe(4_000);
  });

  it("reads through its prepared statement only after the open transaction ends, so it never sees that transaction's rows", async () => {
    const { driver } = freshDriver(4_000);
    await sql`create table t (n integer)`.execute(driver.db);
    const count = { text: 'select count(*) as n from t', name: 'count_t' };
    let finish: (commit: boolean) => void = () => undefined;
    const decided = new Promise<boolean>((resolve) => (finish = resolve));
    let written: () => void = () => undefined;
    const inserted = new Promise<void>((resolve) => (written = resolve));
    const rolledBack = driver.transaction(async (executor) => {
      await executor.run('insert into t (n) values (?)', [1]);
      written();
      if (!(await decided)) throw new Error('roll back');
    });
    await inserted;
    const during = driver.select(count, []);
    finish(false);
    await expect(rolledBack).rejects.toThrow('roll back');
    expect(await during).toEqual([{ n: 0 }]);
    await driver.transaction((executor) => executor.run('insert into t (n) values (?)', [2]));
    expect(await driver.select(count, [])).toEqual([{ n: 1 }]);
  });
});
