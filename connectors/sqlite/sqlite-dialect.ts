import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { SinkDatabase } from '../sql/sink-database.js';
import { DEFAULT_BUSY_TIMEOUT_MS } from './sqlite-config.js';
import type { SqliteSinkConfig } from './sqlite-config.js';

/** The open database: kysely for queries and DDL, the raw handle for the prepared-statement write path. */
export interface SqliteHandles {
  readonly db: Kysely<SinkDatabase>;
  readonly raw: Database.Database;
}

/**
 * Opens the file (creating its directory) with WAL, so readers never block the writer, and
 * synchronous=NORMAL, which in WAL mode loses at most the last commits on power loss, never consistency.
 */
export function openSqlite(config: SqliteSinkConfig): SqliteHandles {
  if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
  const raw = new Database(config.path, { timeout: config.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
  try {
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
  } catch (error) {
    raw.close();
    throw error;
  }
  return { raw, db: new Kysely<SinkDatabase>({ dialect: new SqliteDialect({ database: raw }) }) };
}
