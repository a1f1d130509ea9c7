/**
 * The sync process of the clickhouse figure's memory row, run compiled by fig-clickhouse.ts (`node
 * <build>/test/bench/clickhouse-memory-child.js <upstream JSON> <sink JSON>`): one backfill of the
 * calls stream into ClickHouse under memory-child-runner.ts.
 */
import type { SinkConfig } from '../../connectors/registry.js';
import { backfillCalls, runMemoryChild } from './memory-child-runner.js';

await runMemoryChild({
  args: ['<sink JSON>'],
  backfill: (upstream, [sinkJson]) => backfillCalls(upstream, JSON.parse(sinkJson) as SinkConfig),
});
