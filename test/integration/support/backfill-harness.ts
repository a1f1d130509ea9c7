import { pino } from 'pino';
import { createSink, type SinkConfig } from '../../../connectors/registry.js';
import { warningOf, type BackfillReporter } from '../../../src/entry/cli/backfill/reporter.js';
import { runBackfill } from '../../../src/entry/cli/backfill/run-backfill.js';
import type { CallsyncConfig } from '../../../src/config/index.js';
import { inlineConfig, simulatorConfigDocument } from '../../../src/entry/cli/demo/demo-config.js';
import type { Simulator } from '../../../simulator/index.js';
import { planBusinesses } from '../../../src/engine/sync/plan-businesses.js';
import type { BusinessOutcome } from '../../../src/engine/sync/sync-event.js';

export interface ConfigOptions {
  readonly pageSize?: number;
  readonly rateLimit?: { requests: number; perMs: number } | false;
  /** Replaces the API key of the named businesses (wrong-credential cases). */
  readonly apiKeys?: Record<string, string>;
  readonly streams?: readonly string[];
  readonly concurrency?: number;
  /** @defaultValue the config default (24 h window, every hour) */
  readonly revisit?: { window: string; every: string | number } | false;
  /** @defaultValue a SQLite file at `databasePath` */
  readonly sink?: Record<string, unknown>;
  /** @defaultValue 'warn'; 'info' logs a line per stored page */
  readonly logLevel?: 'info' | 'warn';
}

/** The config document a user would write for this simulator (also written to files for the CLI). */
export function configDocument(simulator: Simulator, databasePath: string, options: ConfigOptions = {}) {
  return {
    ...simulatorConfigDocument(simulator, {
      sink: options.sink ?? { type: 'sqlite', path: databasePath },
      streams: options.streams,
      apiKeys: options.apiKeys,
      upstream: {
        pageSize: options.pageSize ?? 500,
        rateLimit: options.rateLimit ?? { requests: 60, perMs: 1000 },
        // Faults are injected on purpose: retry quickly and often.
        retry: { maxAttempts: 12, baseDelayMs: 5, maxDelayMs: 50 },
        ...(options.revisit === undefined ? {} : { revisit: options.revisit }),
      },
    }),
    backfill: { concurrency: options.concurrency ?? 4 },
    log: { level: options.logLevel ?? 'warn' },
  };
}

export function testConfig(simulator: Simulator, databasePath: string, options: ConfigOptions = {}): CallsyncConfig<SinkConfig> {
  return inlineConfig(configDocument(simulator, databasePath, options), '(test)');
}

export interface BackfillRun {
  readonly outcomes: BusinessOutcome[];
  readonly warnings: string[];
}

/** One in-process backfill, as `callsync backfill` runs it, with warnings collected. */
export async function backfillOnce(config: CallsyncConfig<SinkConfig>): Promise<BackfillRun> {
  const logger = pino({ level: 'silent' });
  const sink = await createSink(config.sink, { logger });
  const warnings: string[] = [];
  const reporter: BackfillReporter = {
    event: (business, event) => {
      const warning = warningOf(event);
      if (warning !== undefined) warnings.push(`${business}/${warning.stream}: ${warning.message}`);
    },
    stop: () => undefined,
  };
  try {
    const outcomes = await runBackfill({ config, plans: planBusinesses(config), sink, reporter });
    return { outcomes, warnings };
  } finally {
    await sink.close();
  }
}

/** Sum of a counter over every stream of every business. */
export function total(run: BackfillRun, field: 'written' | 'records' | 'deadLettered' | 'pages'): number {
  return run.outcomes.flatMap((outcome) => outcome.streams).reduce((sum, stream) => sum + (stream.result?.[field] ?? 0), 0);
}

/** Upstream requests per business (v1 API key + v2), from the simulator's counters. */
export function requestsByBusiness(simulator: Simulator): Record<string, number> {
  const counters = simulator.counters().businesses;
  return Object.fromEntries(Object.entries(counters).map(([name, counter]) => [name, counter.apiKeyRequests + counter.v2Requests]));
}
