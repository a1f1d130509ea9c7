/**
 * The process of the recordings figure's memory row, run compiled by fig-recordings.ts (`node
 * <build>/test/bench/recordings-memory-child.js <upstream JSON> <folder>`): one `backfill
 * --recordings` of the calls stream, wired as the command wires it (the sink, the run's limiter,
 * the archive run poked after each stored page), into SQLite at `<folder>/calls.db` and a folder
 * archive at `<folder>/archive`, while its own RSS is sampled every 100 ms. Prints one JSON line on
 * stdout when done.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSink } from '../../connectors/registry.js';
import { planBusinesses } from '../../src/engine/sync/plan-businesses.js';
import { createLogReporter } from '../../src/entry/cli/backfill/log-reporter.js';
import { runBackfill } from '../../src/entry/cli/backfill/run-backfill.js';
import { startArchiveRun } from '../../src/entry/cli/recordings/archive-run.js';
import { createMemoryRateLimiter } from '../../src/source/ratelimit/index.js';
import { benchConfig, type UpstreamInfo } from '../support/bench-config.js';
import { silentLogger } from '../support/silent-logger.js';

const [upstreamJson, folder] = process.argv.slice(2);
if (upstreamJson === undefined || folder === undefined) throw new Error('usage: recordings-memory-child.ts <upstream JSON> <folder>');
const upstream = JSON.parse(upstreamJson) as UpstreamInfo;
const startRss = process.memoryUsage().rss;
let peakRss = startRss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 100);
const config = benchConfig(
  upstream,
  { type: 'sqlite', path: join(folder, 'calls.db') },
  {
    streams: ['calls'],
    rateLimit: false,
    // The archive's defaults but a budget that never waits: the figure is the memory of a download, not of a wait.
    extra: { recordings: { archive: { type: 'folder', path: join(folder, 'archive') }, budget: { requestsPerMinute: 1_000_000, countAgainstApi: false } } },
  },
);
const logger = silentLogger();
const plans = planBusinesses(config);
const started = performance.now();
const sink = await createSink(config.sink, { logger });
const limiter = createMemoryRateLimiter({ maxWaitMs: config.upstream.maxWaitMs });
const archive = await startArchiveRun({ config, file: '(bench)', plans, limiter, logger, secrets: [] });
const failures: string[] = [];
let records = 0;
try {
  const outcomes = await runBackfill({ config, plans, sink, reporter: createLogReporter(logger), limiter, archive });
  for (const outcome of outcomes) {
    if (outcome.failure !== undefined) failures.push(`${outcome.business}: ${outcome.failure.message}`);
    for (const stream of outcome.streams) {
      records += stream.result?.records ?? 0;
      if (stream.failure !== undefined) failures.push(`${outcome.business}/${stream.stream}: ${stream.failure.message}`);
    }
  }
} finally {
  await archive.close();
  await limiter.close();
  await sink.close();
}
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
const { archived, failed, expired, bytes } = archive.totals;
if (failed > 0 || expired > 0) failures.push(`recordings: ${failed} failed, ${expired} expired`);
const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
process.stdout.write(
  `${JSON.stringify({ records, archived, bytes, seconds, failures, startRss, peakRss, vmHwm: hwm === null ? undefined : Number(hwm[1]) * 1024 })}\n`,
);
