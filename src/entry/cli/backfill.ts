import type { Command } from 'commander';
import { backfillOutput } from './backfill/output.js';
import { runBackfill } from './backfill/run-backfill.js';
import { failedBusinesses, formatSummary } from './backfill/summary.js';
import type { BusinessOutcome } from '../../engine/sync/sync-event.js';
import { failedExit, failureFix } from './backfill/failure-fix.js';
import { stoppedLines } from './backfill/stopped.js';
import { lockStreams } from './backfill/stream-locks.js';
import { EXIT, type ExitCode } from './failure/exit-codes.js';
import { openSink, planTables } from './failure/preflight.js';
import { loadCliConfig } from './load-cli-config.js';
import { selectPlans } from './common/select-plans.js';
import { onShutdownSignal } from './shutdown.js';
import { recordingsSection, startArchiveRun, totalsText, type ArchiveRun, type RecordingTotals } from './recordings/archive-run.js';
import type { ArchiveProgress } from '../../../connectors/recordings/index.js';
import { createMemoryRateLimiter } from '../../source/ratelimit/index.js';

interface BackfillFlags {
  readonly config: string;
  readonly business?: string;
  readonly stream?: string;
  readonly progress: boolean;
  readonly wait?: boolean;
  readonly recordings?: boolean;
}

/** `callsync backfill`: one process, no Redis; exits non-zero naming every business that failed. */
export function registerBackfillCommand(program: Command): void {
  program
    .command('backfill')
    .description('sync every configured business once, from its checkpoint to the end of what upstream has')
    .requiredOption('-c, --config <file>', 'YAML or JSON config file')
    .option('--business <name>', 'only this business')
    .option('--stream <name>', 'only this stream')
    .option('--no-progress', 'log lines instead of progress bars, even on a terminal')
    .option('--wait', 'wait while another backfill or run syncs the same streams into this sink, instead of exiting 5')
    .option('--recordings', "also archive each record's recording as its page is stored (the recordings: section)")
    .action(async (flags: BackfillFlags) => {
      const { config, secrets } = await loadCliConfig(flags.config);
      const plans = selectPlans(config, flags.config, { business: flags.business, stream: flags.stream }, 'sync');
      if (plans === undefined) return;
      if (flags.recordings === true) recordingsSection(config, flags.config);
      const abort = new AbortController();
      const locks = await lockStreams({
        config,
        plans,
        wait: flags.wait === true,
        signal: abort.signal,
        onLost: () => abort.abort(),
        say: (line) => process.stderr.write(`${line}\n`),
      });
      try {
        const output = backfillOutput({ plans, config, bars: flags.progress && process.stderr.isTTY === true, level: config.log.level, secrets });
        const { logger } = output;
        const sink = await openSink(config.sink, planTables(plans), logger, config.recordings?.publicBaseUrl);
        const stopListening = onShutdownSignal(() => {
          logger.warn('stopping after the pages in flight are stored');
          abort.abort();
        });
        const limiter = createMemoryRateLimiter({ maxWaitMs: config.upstream.maxWaitMs });
        let archive: ArchiveRun | undefined;
        try {
          if (flags.recordings === true) {
            const onProgress = (progress: ArchiveProgress, totals: Readonly<RecordingTotals>): void => output.reporter.recording?.(progress, totals);
            archive = await startArchiveRun({ config, file: flags.config, plans, limiter, logger, secrets, signal: abort.signal, onProgress, sink });
          }
          const outcomes = await runBackfill({
            config,
            plans,
            sink,
            reporter: output.reporter,
            signal: abort.signal,
            limiter,
            ...(archive === undefined ? {} : { archive }),
          });
          output.flushLogs();
          process.stdout.write(`${formatSummary(outcomes)}\n`);
          if (archive !== undefined) process.stdout.write(`recordings: ${totalsText(archive.totals)}\n`);
          process.exitCode = reportEnd(
            outcomes,
            config.businesses.map((b) => b.name),
          );
        } finally {
          stopListening();
          await archive?.close();
          await limiter.close();
          await sink.close();
        }
      } finally {
        await locks.release();
      }
    });
}

/** Standard error's account of the end (each failure with its fix, each stopped stream) and the exit code. */
function reportEnd(outcomes: readonly BusinessOutcome[], names: readonly string[]): ExitCode {
  const failed = failedBusinesses(outcomes);
  for (const { business, reason, failure } of failed) {
    const fix = failureFix(failure, business, names.indexOf(business));
    process.stderr.write(`business ${business} failed: ${reason}\n${fix === undefined ? '' : `  ${fix}\n`}`);
  }
  const stopped = stoppedLines(outcomes);
  for (const line of stopped) process.stderr.write(`${line}\n`);
  if (stopped.length > 0) return EXIT.signal;
  if (failed.length === 0) return EXIT.ok;
  return failedExit(failed.map(({ failure }) => failure));
}
