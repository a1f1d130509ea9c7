import { showUrl, urlPlace } from '../../src/base/redact/index.js';
import type { SinkDeps, SinkDescription, SinkFactory } from '../../src/sink/sink.js';
import { flushCapabilities } from '../../src/sink/flush-config.js';
import { ManagedSink } from '../../src/sink/managed-sink.js';
import { clickhouseConfigSchema, DEFAULT_FLUSH, type ClickHouseSinkConfig } from './config.js';
import { explainClickHouseError, explainClickHouseFailure } from './errors.js';

function describeClickHouse(config: ClickHouseSinkConfig): SinkDescription {
  return { key: 'sink.url', service: 'ClickHouse', shown: showUrl(config.url), lockName: `clickhouse:${urlPlace(config.url)}#${config.database}` };
}

/**
 * `sink: { type: clickhouse, url, database?, requestTimeoutMs? }`: an analytics warehouse of
 * ReplacingMergeTree tables, read through `FINAL`. The client loads on the first `create`, so a
 * run that writes elsewhere never loads it.
 */
export const clickhouseSinkFactory = {
  type: 'clickhouse' as const,
  configSchema: clickhouseConfigSchema,
  create: async (config: ClickHouseSinkConfig, deps: SinkDeps) => {
    const sink = describeClickHouse(config);
    const store = (await import('./target.js')).openClickHouseStore(config);
    const explain = (error: unknown) => explainClickHouseError(error, sink);
    const capabilities = flushCapabilities(config.flush, DEFAULT_FLUSH);
    return new ManagedSink({ type: 'clickhouse', store, capabilities, explain }, deps.logger.child({ database: config.database }));
  },
  describe: describeClickHouse,
  explain: explainClickHouseFailure,
} satisfies SinkFactory<ClickHouseSinkConfig>;
