import type { SinkConfig } from '../../connectors/registry.js';
import { createSink } from '../../connectors/registry.js';
import { createLogReporter } from '../../src/entry/cli/backfill/log-reporter.js';
import { runBackfill } from '../../src/entry/cli/backfill/run-backfill.js';
import type { CallsyncConfig } from '../../src/config/index.js';
import type { BusinessOutcome } from '../../src/engine/sync/sync-event.js';
import { planBusinesses } from '../../src/engine/sync/plan-businesses.js';
import { silentLogger } from '../support/silent-logger.js';

export interface BackfillRun {
  readonly seconds: number;
  readonly records: number;
  readonly failures: readonly string[];
}

/** One `callsync backfill` as the command runs it (same sink factory, reporter and runner), timed. */
export async function backfillOnce(config: CallsyncConfig<SinkConfig>): Promise<BackfillRun> {
  const logger = silentLogger();
  const plans = planBusinesses(config);
  const started = performance.now();
  const sink = await createSink(config.sink, { logger });
  const outcomes = await runBackfill({ config, plans, sink, reporter: createLogReporter(logger) }).finally(() => sink.close());
  const seconds = (performance.now() - started) / 1000;
  return { seconds, ...tallyOutcomes(outcomes) };
}

/** The records a backfill stored and its failures, one line each (`business` or `business/stream`: message). */
export function tallyOutcomes(outcomes: readonly BusinessOutcome[]): { records: number; failures: string[] } {
  let records = 0;
  const failures: string[] = [];
  for (const outcome of outcomes) {
    if (outcome.failure !== undefined) failures.push(`${outcome.business}: ${outcome.failure.message}`);
    for (const stream of outcome.streams) {
      records += stream.result?.records ?? 0;
      if (stream.failure !== undefined) failures.push(`${outcome.business}/${stream.stream}: ${stream.failure.message}`);
    }
  }
  return { records, failures };
}
