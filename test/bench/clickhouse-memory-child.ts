/**
 * The sync process of the clickhouse figure's memory row, run compiled as figure 5's child is
 * (`node <build>/test/bench/clickhouse-memory-child.js <upstream JSON> <sink JSON>`): one backfill
 * of the calls stream into ClickHouse while its own RSS is sampled every 100 ms. Prints one JSON
 * line on stdout when done.
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
if (upstreamJson === undefined || sinkJson === undefined) throw new Error('usage: clickhouse-memory-child.ts <upstream JSON> <sink JSON>');
const startRss = process.memoryUsage().rss;
let peakRss = startRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
const sink = JSON.parse(sinkJson) as SinkConfig;
const run = await backfillOnce(benchConfig(JSON.parse(upstreamJson) as UpstreamInfo, sink, { streams: ['calls'], rateLimit: false, concurrency: 1 }));
clearInterval(sampler);
process.stdout.write(`${JSON.stringify({ records: run.records, seconds: run.seconds, failures: run.failures, startRss, peakRss, vmHwm: highWaterMark() })}\n`);
