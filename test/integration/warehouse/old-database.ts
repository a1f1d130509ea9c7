import { pino } from 'pino';
import { openMysqlDriver } from '../../../connectors/mysql/client.js';
import { mysqlConfigSchema } from '../../../connectors/mysql/config.js';
import { mysqlAdapter } from '../../../connectors/mysql/target.js';
import { openPostgresDriver } from '../../../connectors/postgres/client.js';
import { postgresConfigSchema } from '../../../connectors/postgres/config.js';
import { postgresAdapter } from '../../../connectors/postgres/target.js';
import type { SinkConfig } from '../../../connectors/registry.js';
import type { SqlAdapter, SqlDriver } from '../../../connectors/sql/index.js';
import { openSqliteDriver } from '../../../connectors/sqlite/client.js';
import { sqliteConfigSchema } from '../../../connectors/sqlite/config.js';
import { sqliteAdapter } from '../../../connectors/sqlite/target.js';

/** The adapter and driver a SQL sink config opens, for writing a database the way older code did. */
export function openSqlStoreParts(config: SinkConfig): { adapter: SqlAdapter; driver: SqlDriver } {
  if (config.type === 'sqlite') return { adapter: sqliteAdapter, driver: openSqliteDriver(sqliteConfigSchema.parse(config)) };
  if (config.type === 'mysql') return { adapter: mysqlAdapter, driver: openMysqlDriver(mysqlConfigSchema.parse(config), pino({ level: 'silent' })) };
  const postgres = postgresConfigSchema.parse(config);
  return { adapter: postgresAdapter(postgres.schema), driver: openPostgresDriver(postgres, pino({ level: 'silent' })) };
}
