import type { Logger } from 'pino';
import { showUrl, urlPlace } from '../../src/base/redact/index.js';
import type { SinkDeps, SinkDescription, SinkFactory } from '../../src/sink/sink.js';
import { flushCapabilities } from '../../src/sink/flush-config.js';
import { ManagedSink } from '../../src/sink/managed-sink.js';
import type { SqlDialect } from '../sql/index.js';
import { mysqlConfigSchema, type MysqlSinkConfig } from './config.js';
import { explainMysqlError, explainMysqlFailure } from './errors.js';

/**
 * MySQL (and MariaDB) opening itself, for its sink and for a connector's `state:`. mysql2 loads on
 * the first open, so a run that writes elsewhere never loads it.
 */
export const mysqlDialect = {
  type: 'mysql' as const,
  configSchema: mysqlConfigSchema,
  open: async (config: MysqlSinkConfig, logger: Logger) => (await import('./target.js')).openMysqlStore(config, logger),
} satisfies SqlDialect<MysqlSinkConfig>;

function describeMysql(config: MysqlSinkConfig): SinkDescription {
  return { key: 'sink.url', service: 'MySQL', shown: showUrl(config.url), lockName: `mysql:${urlPlace(config.url)}` };
}

/** `sink: { type: mysql, url, poolSize? }`: MySQL 8 or MariaDB 10.11+; the tables come with `prepare`, in the URL's database. */
export const mysqlSinkFactory = {
  type: 'mysql' as const,
  configSchema: mysqlConfigSchema,
  create: async (config: MysqlSinkConfig, deps: SinkDeps) => {
    const sink = describeMysql(config);
    const logger = deps.logger.child({ sink: sink.shown });
    const capabilities = flushCapabilities(config.flush);
    return new ManagedSink(
      { type: 'mysql', store: await mysqlDialect.open(config, logger), capabilities, explain: (error) => explainMysqlError(error, sink) },
      logger,
    );
  },
  describe: describeMysql,
  explain: explainMysqlFailure,
} satisfies SinkFactory<MysqlSinkConfig>;
