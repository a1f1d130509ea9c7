/**
 * The sync process of the duckdb figure's memory row, run compiled by fig-duckdb.ts (`node
 * <build>/test/bench/duckdb-memory-child.js <upstream JSON> <sink JSON>`): one backfill of the calls
 * stream into a DuckDB file under memory-child-runner.ts. Besides the peak RSS it reports what the
 * JavaScript side held at that sample (V8's heap, the buffers outside it), so the rest of the peak is
 * native: DuckDB and the allocators.
 */
import type { SinkConfig } from '../../connectors/registry.js';
import { backfillCalls, runMemoryChild } from './memory-child-runner.js';

await runMemoryChild({
  args: ['<sink JSON>'],
  report: ['startRss', 'peakRss', 'vmHwm', 'atPeak', 'peakHeapUsed', 'secondHalfMax'],
  backfill: (upstream, [sinkJson]) => backfillCalls(upstream, JSON.parse(sinkJson) as SinkConfig),
});
