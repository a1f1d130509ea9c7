import type { Logger } from 'pino';
import { z } from 'zod';
import { postgresConfigSchema, type PostgresSinkConfig } from '../postgres/postgres-config.js';
import { sqliteConfigSchema, type SqliteSinkConfig } from '../sqlite/sqlite-config.js';
import { SqlStore } from './sql-store.js';

/** A SQL database configured as its sink would be; HubSpot's and webhook's `state:` section. */
export const sqlStoreConfigSchema = z.discriminatedUnion('type', [sqliteConfigSchema, postgresConfigSchema]);

export type SqlStoreConfig = SqliteSinkConfig | PostgresSinkConfig;

/**
 * Opens a SQL store: the SQLite and Postgres sinks, and the state store of HubSpot and webhook.
 * Drivers load on use, so a run that writes to one database never loads the other's.
 */
export async function openSqlStore(config: SqlStoreConfig, logger: Logger): Promise<SqlStore> {
  if (config.type === 'sqlite') {
    const [{ sqliteAdapter }, { openSqliteDriver }] = await Promise.all([import('../sqlite/sqlite-adapter.js'), import('../sqlite/sqlite-driver.js')]);
    return new SqlStore(sqliteAdapter, openSqliteDriver(config));
  }
  const [{ postgresAdapter }, { openPostgresDriver }] = await Promise.all([
    import('../postgres/postgres-adapter.js'),
    import('../postgres/postgres-driver.js'),
  ]);
  return new SqlStore(postgresAdapter(config.schema), openPostgresDriver(config, logger));
}
