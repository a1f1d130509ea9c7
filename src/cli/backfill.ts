import type { Command } from 'commander';
import { createSink } from '../../connectors/registry.js';
import { createLogReporter } from './backfill/log-reporter.js';
import { runBackfill } from './backfill/run-backfill.js';
import { failedBusinesses, formatSummary } from './backfill/summary.js';
import { createTtyReporter } from './backfill/tty-reporter.js';
import { loadCliConfig } from './load-cli-config.js';
import { createLogger } from './logger.js';
import { selectPlans } from './select-plans.js';
import { onShutdownSignal } from './shutdown.js';

interface BackfillFlags {
  readonly config: string;
  readonly business?: string;
  readonly stream?: string;
  readonly progress: boolean;
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
    .action(async (flags: BackfillFlags) => {
      const { config, secrets } = await loadCliConfig(flags.config);
      const logger = createLogger({ level: config.log.level, secrets });
      const plans = selectPlans(config, flags.config, { business: flags.business, stream: flags.stream }, 'sync');
      if (plans === undefined) return;
      const sink = await createSink(config.sink, { logger });
      const abort = new AbortController();
      const stopListening = onShutdownSignal(() => {
        logger.warn('stopping after the pages in flight are stored');
        abort.abort();
      });
      const reporter =
        flags.progress && process.stderr.isTTY
          ? createTtyReporter(plans, config.upstream.pageSize, logger)
          : createLogReporter(logger);
      try {
        const outcomes = await runBackfill({ config, plans, sink, reporter, signal: abort.signal });
        process.stdout.write(`${formatSummary(outcomes)}\n`);
        const failed = failedBusinesses(outcomes);
        for (const { business, reason } of failed) process.stderr.write(`business ${business} failed: ${reason}\n`);
        if (failed.length > 0) process.exitCode = 1;
      } finally {
        stopListening();
        await sink.close();
      }
    });
}
