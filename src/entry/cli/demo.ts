import { resolve } from 'node:path';
import type { Command } from 'commander';
import { createSink } from '../../../connectors/registry.js';
import { startSimulator } from '../../../simulator/index.js';
import { planBusinesses } from '../../engine/sync/plan-businesses.js';
import { runBackfill } from './backfill/run-backfill.js';
import { failedBusinesses, formatSummary } from './backfill/summary.js';
import { backfillOutput } from './backfill/output.js';
import { demoConfig } from './demo/demo-config.js';
import { tableCounts } from './demo/table-counts.js';
import { formatTable } from './common/text-table.js';

interface DemoFlags {
  readonly database: string;
  readonly calls: string;
  readonly voicemails: string;
}

/** `callsync demo` (`npm run demo`): the simulator in-process, backfilled into SQLite, no account needed. */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('start the built-in simulator and backfill three businesses into SQLite')
    .option('--database <file>', 'SQLite file to write', './data/demo.db')
    .option('--calls <n>', 'calls per business', '2000')
    .option('--voicemails <n>', 'voicemails per business', '150')
    .action(async (flags: DemoFlags) => {
      const databasePath = resolve(flags.database);
      const simulator = await startSimulator({
        businesses: 3,
        calls: Number(flags.calls),
        voicemails: Number(flags.voicemails),
        numbers: 5,
        seed: 1,
      });
      try {
        const config = demoConfig(simulator, databasePath);
        const plans = planBusinesses(config);
        const { logger, reporter, flushLogs } = backfillOutput({ plans, config, bars: process.stderr.isTTY === true, level: 'warn' });
        const sink = await createSink(config.sink, { logger });
        const outcomes = await runBackfill({ config, plans, sink, reporter }).finally(() => sink.close());
        flushLogs();
        const counts = tableCounts(databasePath, [...new Set(plans.flatMap((plan) => plan.streams.map((stream) => stream.table.table)))]);
        process.stdout.write(
          [
            `\nSynced from the simulator at ${simulator.baseUrl} into ${databasePath}\n`,
            formatSummary(outcomes),
            '\nRows now in the database:\n',
            formatTable(
              ['table', 'business', 'rows'],
              counts.map((count) => [count.table, count.business, count.rows]),
            ),
            '\nLook inside:',
            `  sqlite3 ${flags.database} "select business_id, id, direction, from_number, created_at from calls order by created_at desc limit 5"`,
            `  sqlite3 ${flags.database} "select business_id, stream, position, records_synced from sync_state"`,
            'Run `npm run demo` again: it resumes from the stored checkpoints and writes nothing new.\n',
          ].join('\n'),
        );
        if (failedBusinesses(outcomes).length > 0) process.exitCode = 1;
      } finally {
        await simulator.close();
      }
    });
}
