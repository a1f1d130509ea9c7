import type { Command } from 'commander';
import { createSink } from '../../../connectors/registry.js';
import { createRedactor, forTerminal } from '../../base/redact/index.js';
import { loadCliConfig } from './load-cli-config.js';
import { createLogger } from './common/logger.js';
import { formatChecks, reconcileExitCode } from './reconcile/format-checks.js';
import { runReconcile } from './reconcile/run-reconcile.js';
import { selectPlans } from './common/select-plans.js';
import { onShutdownSignal } from './shutdown.js';

interface ReconcileFlags {
  readonly config: string;
  readonly business?: string;
  readonly stream?: string;
  readonly repair?: boolean;
  readonly confirmDeletions?: boolean;
  readonly json?: boolean;
}

/**
 * `callsync reconcile`: is the mirror complete? Compares what the sink holds with what upstream
 * says it has, per business × stream; `--repair` walks each list, stores what is missing and
 * marks deleted what upstream no longer lists as far as the deletion guard allows
 * (`--confirm-deletions` lifts it). Exit 1 when anything differs (after the repair,
 * when one ran), 2 for a bad config.
 */
export function registerReconcileCommand(program: Command): void {
  program
    .command('reconcile')
    .description('compare the records stored with what upstream has (v1 totals); --repair fetches what is missing and marks deleted what upstream dropped')
    .requiredOption('-c, --config <file>', 'YAML or JSON config file')
    .option('--business <name>', 'only this business')
    .option('--stream <name>', 'only this stream')
    .option('--repair', 'walk each list: store missing records, mark records upstream no longer lists as deleted')
    .option(
      '--confirm-deletions',
      'with --repair: mark deleted everything a whole walk did not see, past the deletion guard (reconcile.maxDeleteShare, maxDeleteCount, deleteAfter)',
    )
    .option('--json', 'one JSON document instead of the table')
    .action(async (flags: ReconcileFlags) => {
      if (flags.confirmDeletions === true && flags.repair !== true) {
        process.stderr.write('error: --confirm-deletions confirms what a repair marks deleted\nfix: run callsync reconcile --repair --confirm-deletions\n');
        process.exitCode = 2;
        return;
      }
      const { config, secrets } = await loadCliConfig(flags.config);
      const logger = createLogger({ level: config.log.level, secrets });
      const plans = selectPlans(config, flags.config, { business: flags.business, stream: flags.stream }, 'reconcile');
      if (plans === undefined) return;
      const sink = await createSink(config.sink, { logger });
      const stop = new AbortController();
      const stopListening = onShutdownSignal(() => stop.abort(new Error('interrupted')));
      try {
        await sink.prepare([...new Map(plans.flatMap((plan) => plan.streams.map((s) => [s.table.table, s.table]))).values()]);
        const rows = await runReconcile({
          config,
          plans,
          sink,
          repair: flags.repair === true,
          confirmDeletions: flags.confirmDeletions === true,
          logger,
          signal: stop.signal,
        });
        const text = flags.json === true ? JSON.stringify({ streams: rows }, null, 2) : formatChecks(rows);
        process.stdout.write(`${forTerminal(createRedactor(secrets)(text))}\n`);
        process.exitCode = reconcileExitCode(rows);
      } finally {
        stopListening();
        await sink.close();
      }
    });
}
