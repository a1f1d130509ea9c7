import type { SinkConfig } from '../../connectors/registry.js';
import { inlineConfig, simulatorConfigDocument, type SimulatorEndpoint } from '../../src/entry/cli/demo/demo-config.js';
import type { CallsyncConfig } from '../../src/config/index.js';

/** What a simulator (in-process or child) tells a client: URLs and credentials. */
export type UpstreamInfo = SimulatorEndpoint;

export interface BenchConfigOptions {
  readonly streams: readonly string[];
  readonly rateLimit: { readonly requests: number; readonly perMs: number } | false;
  /** @defaultValue 500 */
  readonly pageSize?: number;
  /** @defaultValue 4 */
  readonly concurrency?: number;
  /** Extra top-level sections for `run` (redis, schedule, server). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** The config document a user would write for this upstream, before validation (also written to files for `run`). */
export function benchDocument(upstream: UpstreamInfo, sink: SinkConfig, options: BenchConfigOptions): Record<string, unknown> {
  return {
    ...simulatorConfigDocument(upstream, {
      sink,
      streams: options.streams,
      upstream: { rateLimit: options.rateLimit, pageSize: options.pageSize ?? 500 },
    }),
    backfill: { concurrency: options.concurrency ?? 4 },
    log: { level: 'silent' },
    ...options.extra,
  };
}

/** The validated config, built in code as the demo does (ports are ephemeral). */
export function benchConfig(upstream: UpstreamInfo, sink: SinkConfig, options: BenchConfigOptions): CallsyncConfig<SinkConfig> {
  return inlineConfig(benchDocument(upstream, sink, options), '(bench)');
}
