#!/usr/bin/env -S node --max-old-space-size=1024
import { Command } from 'commander';
import { registerBackfillCommand } from './backfill.js';
import { registerCheckConfigCommand } from './check-config.js';
import { registerCompactCommand } from './compact.js';
import { registerDeadLettersCommand } from './dead-letters.js';
import { registerDemoCommand } from './demo.js';
import { registerReconcileCommand } from './reconcile.js';
import { registerRecordingsCommand } from './recordings.js';
import { registerResumeCommand } from './resume.js';
import { registerRunCommand } from './run.js';
import { registerSimulateCommand } from './simulate.js';
import { registerStatusCommand } from './status.js';
import { reportFatal, wantsStack } from './failure/report-fatal.js';
import { loadedConfigSecrets } from './load-cli-config.js';
import { createRedactor } from '../../base/redact/index.js';
import { exitTwoOnUsageErrors } from './usage-errors.js';

const program = new Command()
  .name('callsync')
  .description('Mirror call-tracking data into SQLite, Postgres, MySQL, DuckDB, ClickHouse, Parquet files, HubSpot, Salesforce or a webhook.')
  .option('--verbose', 'stack traces with errors');

registerBackfillCommand(program);
registerCheckConfigCommand(program);
registerDeadLettersCommand(program);
registerSimulateCommand(program);
registerStatusCommand(program);
registerDemoCommand(program);
registerRunCommand(program);
registerResumeCommand(program);
registerReconcileCommand(program);
registerRecordingsCommand(program);
registerCompactCommand(program);
const usageExitCode = exitTwoOnUsageErrors(program, (text) => process.stderr.write(text));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const usage = usageExitCode(error);
  if (usage !== undefined) process.exit(usage);
  const code = reportFatal(error, wantsStack(process.argv, process.env), (text) => process.stderr.write(text), createRedactor(loadedConfigSecrets));
  // Open pools and reconnecting clients must not keep a failed command alive.
  process.exit(code);
}
