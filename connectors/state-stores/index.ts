import type { Logger } from 'pino';
import { z } from 'zod';
import type { StateStore } from '../../src/sink/parts.js';
import { mysqlDialect } from '../mysql/index.js';
import { postgresDialect } from '../postgres/index.js';
import type { SqlDialect } from '../sql/index.js';
import { sqliteDialect } from '../sqlite/index.js';

/**
 * Every SQL database a connector can keep its state in (HubSpot's, Salesforce's and webhook's
 * `state:`), by `type`, as `connectors/registry.ts` keys the sinks: a new dialect is one line here.
 */
const stateStoreDialects = {
  sqlite: sqliteDialect,
  postgres: postgresDialect,
  mysql: mysqlDialect,
} as const;

/** A `state:` section: a SQL database configured as its sink would be. */
export const stateStoreConfigSchema = z.discriminatedUnion('type', [
  stateStoreDialects.sqlite.configSchema,
  stateStoreDialects.postgres.configSchema,
  stateStoreDialects.mysql.configSchema,
]);

export type StateStoreConfig = z.output<typeof stateStoreConfigSchema>;

/** Opens the state store its `type` names; no branch over the names. */
export function openStateStore(config: StateStoreConfig, logger: Logger): Promise<StateStore> {
  // The discriminated union guarantees `config` belongs to the dialect of its `type`.
  const dialect = stateStoreDialects[config.type] as SqlDialect<StateStoreConfig>;
  return dialect.open(config, logger);
}
