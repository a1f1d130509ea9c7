/**
 * The sync process of figure 5, run by fig-memory.ts compiled (`node <build>/test/bench/memory-child.js
 * <upstream JSON> <sqlite path>`; `node --import tsx test/bench/memory-child.ts …` works too): one
 * backfill of the calls stream while its own RSS is sampled every 100 ms. Prints one JSON line on
 * stdout when done.
 */
import { readFileSync } from 'node:fs';
import type { SinkConfig } from '../../connectors/registry.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig, type UpstreamInfo } from '../support/bench-config.js';

function highWaterMark(): number | undefined {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match === null ? undefined : Number(match[1]) * 1024;
}

const [upstreamJson, path, sinkJson] = process.argv.slice(2);
if (upstreamJson === undefined || path === undefined) throw new Error('usage: memory-child.ts <upstream JSON> <sqlite path> [sink JSON instead]');
const upstream = JSON.parse(upstreamJson) as UpstreamInfo;
const startRss = process.memoryUsage().rss;
let peakRss = startRss;
let peakHeapUsed = 0;
let peakExternal = 0;
const samples: number[] = [];
const sampler = setInterval(() => {
  const usage = process.memoryUsage();
  samples.push(usage.rss);
  peakRss = Math.max(peakRss, usage.rss);
  peakHeapUsed = Math.max(peakHeapUsed, usage.heapUsed);
  peakExternal = Math.max(peakExternal, usage.external);
}, 100);
const run = await backfillOnce(
  benchConfig(upstream, sinkJson === undefined ? { type: 'sqlite', path } : (JSON.parse(sinkJson) as SinkConfig), {
    streams: ['calls'],
    rateLimit: false,
    concurrency: 1,
  }),
);
clearInterval(sampler);
const tail = samples.slice(Math.floor(samples.length / 2));
process.stdout.write(
  `${JSON.stringify({
    records: run.records,
    seconds: run.seconds,
    failures: run.failures,
    startRss,
    peakRss,
    peakHeapUsed,
    peakExternal,
    vmHwm: highWaterMark(),
    // Within one run, "flat" means the second half peaks no higher than the first.
    firstHalfMax: Math.max(...samples.slice(0, Math.floor(samples.length / 2)), 0),
    secondHalfMax: Math.max(...tail, 0),
  })}\n`,
);
