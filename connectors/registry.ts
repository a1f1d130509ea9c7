import { z } from 'zod';
import type { Sink, SinkDeps, SinkDescription, SinkFactory, SinkFailureExplanation } from '../src/sink/sink.js';
import { clickhouseSinkFactory } from './clickhouse/index.js';
import { duckdbSinkFactory } from './duckdb/index.js';
import { hubspotSinkFactory } from './hubspot/index.js';
import { mysqlSinkFactory } from './mysql/index.js';
import { parquetSinkFactory } from './parquet/index.js';
import { postgresSinkFactory } from './postgres/index.js';
import { salesforceSinkFactory } from './salesforce/index.js';
import { sqliteSinkFactory } from './sqlite/index.js';
import { webhookSinkFactory } from './webhook/index.js';

/**
 * Every connector, by `sink.type`. A new connector is a folder in the shape `connectors/README.md`
 * gives, one import and one line here (and it must pass `test/integration/sink-conformance`);
 * nothing is loaded by file name.
 */
export const sinkFactories = {
  sqlite: sqliteSinkFactory,
  postgres: postgresSinkFactory,
  hubspot: hubspotSinkFactory,
  salesforce: salesforceSinkFactory,
  webhook: webhookSinkFactory,
  mysql: mysqlSinkFactory,
  clickhouse: clickhouseSinkFactory,
  parquet: parquetSinkFactory,
  duckdb: duckdbSinkFactory,
} as const;

type SinkType = keyof typeof sinkFactories;

/** The config file's `sink:` section: exactly one connector's schema, chosen by `type`. */
export const sinkConfigSchema = z.discriminatedUnion('type', [
  sinkFactories.sqlite.configSchema,
  sinkFactories.postgres.configSchema,
  sinkFactories.hubspot.configSchema,
  sinkFactories.salesforce.configSchema,
  sinkFactories.webhook.configSchema,
  sinkFactories.mysql.configSchema,
  sinkFactories.clickhouse.configSchema,
  sinkFactories.parquet.configSchema,
  sinkFactories.duckdb.configSchema,
]);

export type SinkConfig = z.infer<typeof sinkConfigSchema>;

/** The configured sink as its connector names it, with the connector's own reading of its error codes. */
interface DescribedSink extends SinkDescription {
  /** The connector's explanation of a failure carrying its codes; `undefined` when it has none. */
  explain(codes: readonly string[]): SinkFailureExplanation | undefined;
}

/** Asks the configured sink's connector to name it and to read its failures; no switch over types. */
export function describeSink(config: SinkConfig | { readonly type: string }): DescribedSink {
  // A loaded config's `sink` was validated by `sinkConfigSchema`, so its type names a factory and its fields fit it.
  if (!Object.hasOwn(sinkFactories, config.type)) throw new Error(`sink.type "${config.type}" names no connector`);
  const factory = sinkFactories[config.type as SinkType] as SinkFactory<SinkConfig>;
  const description = factory.describe(config as SinkConfig);
  return { ...description, explain: (codes) => factory.explain?.(codes, description) };
}

/** Builds the configured sink, managed (lifecycle guards, logging); `prepare` runs on first use if not called. */
export function createSink(config: SinkConfig, deps: SinkDeps): Promise<Sink> {
  // The discriminated union guarantees `config` belongs to the factory of its `type`.
  const factory = sinkFactories[config.type] as SinkFactory<SinkConfig>;
  return factory.create(config, deps);
}
