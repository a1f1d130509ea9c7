import type { Command } from 'commander';
import { compactPartition } from '../../../connectors/parquet/compact.js';
import { ParquetSinkError } from '../../../connectors/parquet/errors.js';
import { EXIT, OperatorError } from './failure/exit-codes.js';
import { using } from './failure/explain.js';
import { sinkTarget } from './failure/targets.js';
import { loadCliConfig } from './load-cli-config.js';
import { selectPlans } from './common/select-plans.js';

interface CompactFlags {
  readonly config: string;
  readonly business: string;
  readonly stream: string;
  readonly date: string;
  readonly includeToday?: boolean;
  readonly json?: boolean;
}

/** `callsync compact`: rewrites one day's Parquet files of a business × stream as one file. */
export function registerCompactCommand(program: Command): void {
  program
    .command('compact')
    .description("rewrite one partition of the parquet sink (a business's stream on one UTC day) as one file")
    .requiredOption('-c, --config <file>', 'YAML or JSON config file')
    .requiredOption('--business <name>', 'the business')
    .requiredOption('--stream <name>', 'the stream')
    .requiredOption('--date <YYYY-MM-DD>', 'the UTC day of the partition (its folder date=YYYY-MM-DD)')
    .option('--include-today', "allow today's partition: only when no backfill or run writes this business and stream")
    .option('--json', 'one JSON document instead of a line')
    .action(async (flags: CompactFlags) => {
      const { config } = await loadCliConfig(flags.config);
      if (config.sink.type !== 'parquet')
        throw new OperatorError(
          `${flags.config}: compact rewrites the parquet sink's files; sink.type is ${config.sink.type}\nfix: run it with a config whose sink is parquet`,
          EXIT.config,
        );
      const plan = selectPlans(config, flags.config, { business: flags.business, stream: flags.stream }, 'compact')?.[0];
      const stream = plan?.streams[0];
      if (plan === undefined || stream === undefined) return;
      const sink = config.sink;
      const partition = { table: stream.table.table, businessId: plan.name, day: flags.date };
      const compaction = await using(sinkTarget(sink), async () => {
        try {
          return await compactPartition(sink, partition, { includeToday: flags.includeToday === true });
        } catch (error) {
          // A date refused (not a date, a day still open) is the command line's fault, said with its fix.
          throw error instanceof ParquetSinkError ? new OperatorError(error.message, EXIT.config, { cause: error }) : error;
        }
      });
      if (flags.json === true) return void process.stdout.write(`${JSON.stringify(compaction)}\n`);
      const { prefix, before, key, rows } = compaction;
      process.stdout.write(
        key === undefined || rows === undefined
          ? `${prefix}: ${before} file${before === 1 ? '' : 's'}, nothing to compact\n`
          : `${prefix}: ${before} files rewritten as ${key.slice(prefix.length)} (${rows} rows)\n`,
      );
    });
}
