/**
 * The sync process of figure 5, run compiled by fig-memory.ts (`node <build>/test/bench/memory-child.js
 * <upstream JSON> <sqlite path>`, or `<upstream JSON> '' <sink JSON>` for another sink): one backfill
 * of the calls stream under memory-child-runner.ts.
 */
import type { SinkConfig } from '../../connectors/registry.js';
import { backfillCalls, runMemoryChild } from './memory-child-runner.js';

await runMemoryChild({
  args: ['<sqlite path>', '[sink JSON instead]'],
  report: ['startRss', 'peakRss', 'peakHeapUsed', 'peakExternal', 'vmHwm', 'firstHalfMax', 'secondHalfMax'],
  backfill: (upstream, [path, sinkJson]) => backfillCalls(upstream, sinkJson === undefined ? { type: 'sqlite', path } : (JSON.parse(sinkJson) as SinkConfig)),
});
