/**
 * The sync process of the duckdb figure's memory row, run compiled by fig-duckdb.ts (`node
 * <build>/test/bench/duckdb-memory-child.js <upstream JSON> <sink JSON>`): one backfill of the calls
 * stream into a DuckDB file while its own memory is sampled every 100 ms. Prints one JSON line on
 * stdout when done: the peak RSS, and what the JavaScript side held at that sample (V8's heap, the
 * buffers outside it), so the rest of the peak is native: DuckDB and the allocators.
 */
import { readFileSync } from 'node:fs';
import type { SinkConfig } from '../../connectors/registry.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig, type UpstreamInfo } from '../support/bench-config.js';

function highWaterMark(): number | undefined {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match === null ? undefined : Number(match[1]) * 1024;
}

const [upstreamJson, sinkJson] = process.argv.slice(2);
if (upstreamJson === undefined || sinkJson === undefined) throw new Error('usage: duckdb-memory-child.ts <upstream JSON> <sink JSON>');
const upstream = JSON.parse(upstreamJson) as UpstreamInfo;
const startRss = process.memoryUsage().rss;
let atPeak = process.memoryUsage();
let peakHeapUsed = 0;
const samples: number[] = [];
const sampler = setInterval(() => {
  const usage = process.memoryUsage();
  samples.push(usage.rss);
  peakHeapUsed = Math.max(peakHeapUsed, usage.heapUsed);
  if (usage.rss > atPeak.rss) atPeak = usage;
}, 100);
const run = await backfillOnce(benchConfig(upstream, JSON.parse(sinkJson) as SinkConfig, { streams: ['calls'], rateLimit: false, concurrency: 1 }));
clearInterval(sampler);
process.stdout.write(
  `${JSON.stringify({
    records: run.records,
    seconds: run.seconds,
    failures: run.failures,
    startRss,
    peakRss: atPeak.rss,
    vmHwm: highWaterMark(),
    atPeak: { heapTotal: atPeak.heapTotal, heapUsed: atPeak.heapUsed, external: atPeak.external, arrayBuffers: atPeak.arrayBuffers },
    peakHeapUsed,
    secondHalfMax: Math.max(...samples.slice(Math.floor(samples.length / 2)), 0),
  })}\n`,
);
