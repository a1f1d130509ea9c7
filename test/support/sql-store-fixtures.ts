import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { postgresUrl, uniqueName } from '../integration/services.js';
import type { SinkConfig } from '../../connectors/registry.js';
import { freshMysqlDatabase } from './mysql-database.js';

/** A SQL sink config on fresh storage (a new file, a new schema); its removal is pushed onto `cleanups`. */
export async function freshSqlConfig(dialect: 'sqlite' | 'postgres' | 'mysql', cleanups: (() => Promise<void>)[]): Promise<SinkConfig> {
  if (dialect === 'mysql') {
    const database = await freshMysqlDatabase('sql');
    cleanups.push(() => database.drop());
    return { type: 'mysql', url: database.url };
  }
  if (dialect === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'callsync-sql-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return { type: 'sqlite', path: join(dir, 'callsync.db') };
  }
  const schema = uniqueName('sql');
  const config: SinkConfig = { type: 'postgres', url: postgresUrl, schema };
  cleanups.push(() => querySql(config, () => [`drop schema if exists "${schema}" cascade`]).then(() => undefined));
  return config;
}

/**
 * Runs the statements on a connection of its own to the configured database (`t(name)` qualifies
 * a table name) and resolves with the rows of the last one.
 */
export async function querySql(config: SinkConfig, statements: (t: (name: string) => string) => string[]): Promise<Record<string, unknown>[]> {
  let rows: Record<string, unknown>[] = [];
  if (config.type === 'sqlite') {
    const db = new Database(config.path);
    try {
      for (const text of statements((name) => `"${name}"`)) {
        const statement = db.prepare(text);
        rows = statement.reader ? (statement.all() as Record<string, unknown>[]) : (statement.run(), []);
      }
    } finally {
      db.close();
    }
    return rows;
  }
  if (config.type === 'mysql') {
    // Double-quoted identifiers, as the sink's own connections read them.
    const connection = await mysql.createConnection({ uri: config.url, charset: 'UTF8MB4_BIN' });
    try {
      await connection.query("set session sql_mode = 'ANSI_QUOTES,STRICT_ALL_TABLES'");
      for (const text of statements((name) => `"${name}"`)) rows = (await connection.query(text))[0] as Record<string, unknown>[];
    } finally {
      await connection.end();
    }
    return rows;
  }
  if (config.type !== 'postgres') throw new Error('a SQL sink only');
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    for (const text of statements((name) => `"${config.schema}"."${name}"`)) rows = (await client.query<Record<string, unknown>>(text)).rows;
  } finally {
    await client.end();
  }
  return rows;
}
