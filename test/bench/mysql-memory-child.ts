/**
 * The sync process of the mysql figure's memory row, run compiled by fig-mysql.ts
 * (`node <build>/test/bench/mysql-memory-child.js <upstream JSON> <mysql URL>`): one backfill of the
 * calls stream into MySQL while its own RSS is sampled every 100 ms, as memory-child.ts does for
 * SQLite. Prints one JSON line on stdout when done.
 */
import { readFileSync } from 'node:fs';
import { backfillOnce } from './backfill-once.js';
import { benchConfig, type UpstreamInfo } from '../support/bench-config.js';

function highWaterMark(): number | undefined {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match === null ? undefined : Number(match[1]) * 1024;
}

const [upstreamJson, url] = process.argv.slice(2);
if (upstreamJson === undefined || url === undefined) throw new Error('usage: mysql-memory-child.ts <upstream JSON> <mysql URL>');
const upstream = JSON.parse(upstreamJson) as UpstreamInfo;
const startRss = process.memoryUsage().rss;
let peakRss = startRss;
const samples: number[] = [];
const sampler = setInterval(() => {
  const { rss } = process.memoryUsage();
  samples.push(rss);
  peakRss = Math.max(peakRss, rss);
}, 100);
const run = await backfillOnce(benchConfig(upstream, { type: 'mysql', url }, { streams: ['calls'], rateLimit: false, concurrency: 1 }));
clearInterval(sampler);
process.stdout.write(
  `${JSON.stringify({
    records: run.records,
    seconds: run.seconds,
    failures: run.failures,
    startRss,
    peakRss,
    vmHwm: highWaterMark(),
    secondHalfMax: Math.max(...samples.slice(Math.floor(samples.length / 2)), 0),
  })}\n`,
);
