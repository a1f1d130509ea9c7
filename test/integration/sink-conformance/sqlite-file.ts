import Database from 'better-sqlite3';

/** Runs `body` on a connection of its own to the SQLite file at `path`. */
export function withSqlite<T>(path: string, body: (db: Database.Database) => T): T {
  const db = new Database(path);
  try {
    return body(db);
  } finally {
    db.close();
  }
}

/** Makes every insert or update of `sync_state` in the file fail (a crash before the checkpoint lands) until the returned function runs. */
export function breakSqliteCheckpoints(path: string): Promise<() => Promise<void>> {
  withSqlite(path, (db) =>
    db.exec(`
      create trigger crash_insert before insert on sync_state begin select raise(abort, 'simulated crash'); end;
      create trigger crash_update before update on sync_state begin select raise(abort, 'simulated crash'); end;`),
  );
  return Promise.resolve(() => {
    withSqlite(path, (db) => db.exec('drop trigger crash_insert; drop trigger crash_update;'));
    return Promise.resolve();
  });
}
