/**
 * The sync process of the Parquet figure's memory row, run compiled by fig-parquet.ts (`node
 * <build>/test/bench/parquet-memory-child.js <upstream JSON> <folder>`): one backfill of the calls
 * stream into Parquet files under `<folder>/lake` (state in `<folder>/state.db`) while its own RSS
 * is sampled every 100 ms. Prints one JSON line on stdout when done.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetConfigSchema } from '../../connectors/parquet/index.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig, type UpstreamInfo } from '../support/bench-config.js';

const [upstreamJson, folder] = process.argv.slice(2);
if (upstreamJson === undefined || folder === undefined) throw new Error('usage: parquet-memory-child.ts <upstream JSON> <folder>');
const upstream = JSON.parse(upstreamJson) as UpstreamInfo;
const startRss = process.memoryUsage().rss;
let peakRss = startRss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 100);
const sink = parquetConfigSchema.parse({
  type: 'parquet',
  storage: { type: 'folder', path: join(folder, 'lake') },
  state: { type: 'sqlite', path: join(folder, 'state.db') },
});
const run = await backfillOnce(benchConfig(upstream, sink, { streams: ['calls'], rateLimit: false, concurrency: 1 }));
clearInterval(sampler);
const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
process.stdout.write(
  `${JSON.stringify({ records: run.records, seconds: run.seconds, failures: run.failures, startRss, peakRss, vmHwm: hwm === null ? undefined : Number(hwm[1]) * 1024 })}\n`,
);
