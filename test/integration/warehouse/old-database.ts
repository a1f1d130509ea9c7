import { pino } from 'pino';
import { postgresAdapter } from '../../../connectors/postgres/postgres-adapter.js';
import { postgresConfigSchema } from '../../../connectors/postgres/postgres-config.js';
import { openPostgresDriver } from '../../../connectors/postgres/postgres-driver.js';
import type { SinkConfig } from '../../../connectors/registry.js';
import type { SqlAdapter, SqlDriver } from '../../../connectors/sql/sql-dialect.js';
import { sqliteAdapter } from '../../../connectors/sqlite/sqlite-adapter.js';
import { sqliteConfigSchema } from '../../../connectors/sqlite/sqlite-config.js';
import { openSqliteDriver } from '../../../connectors/sqlite/sqlite-driver.js';

/** The adapter and driver a SQL sink config opens, for writing a database the way older code did. */
export function openSqlStoreParts(config: SinkConfig): { adapter: SqlAdapter; driver: SqlDriver } {
  if (config.type === 'sqlite') return { adapter: sqliteAdapter, driver: openSqliteDriver(sqliteConfigSchema.parse(config)) };
  const postgres = postgresConfigSchema.parse(config);
  return { adapter: postgresAdapter(postgres.schema), driver: openPostgresDriver(postgres, pino({ level: 'silent' })) };
}
