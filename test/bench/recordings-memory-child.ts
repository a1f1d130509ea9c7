/**
 * The process of the recordings figure's memory row, run compiled by fig-recordings.ts (`node
 * <build>/test/bench/recordings-memory-child.js <upstream JSON> <folder>`): one `backfill
 * --recordings` of the calls stream, wired as the command wires it (the sink, the run's limiter,
 * the archive run poked after each stored page), into SQLite at `<folder>/calls.db` and a folder
 * archive at `<folder>/archive`, under memory-child-runner.ts.
 */
import { join } from 'node:path';
import { createSink } from '../../connectors/registry.js';
import { planBusinesses } from '../../src/engine/sync/plan-businesses.js';
import { createLogReporter } from '../../src/entry/cli/backfill/log-reporter.js';
import { runBackfill } from '../../src/entry/cli/backfill/run-backfill.js';
import { startArchiveRun } from '../../src/entry/cli/recordings/archive-run.js';
import { createMemoryRateLimiter } from '../../src/source/ratelimit/index.js';
import { benchConfig, type UpstreamInfo } from '../support/bench-config.js';
import { silentLogger } from '../support/silent-logger.js';
import { tallyOutcomes } from './backfill-once.js';
import { runMemoryChild } from './memory-child-runner.js';

async function backfillWithRecordings(upstream: UpstreamInfo, folder: string) {
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
  let tally: ReturnType<typeof tallyOutcomes>;
  try {
    tally = tallyOutcomes(await runBackfill({ config, plans, sink, reporter: createLogReporter(logger), limiter, archive }));
  } finally {
    await archive.close();
    await limiter.close();
    await sink.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const { archived, failed, expired, bytes } = archive.totals;
  if (failed > 0 || expired > 0) tally.failures.push(`recordings: ${failed} failed, ${expired} expired`);
  return { records: tally.records, archived, bytes, seconds, failures: tally.failures };
}

await runMemoryChild({ args: ['<folder>'], backfill: (upstream, [folder]) => backfillWithRecordings(upstream, folder) });
