import { sinkConfigSchema, type SinkConfig } from '../../connectors/registry.js';
import { resolveConfig, type CallsyncConfig } from '../../src/config/index.js';

/** What a simulator (in-process or child) tells a client: URLs and credentials. */
export interface UpstreamInfo {
  readonly baseUrl: string;
  readonly v2BaseUrl: string;
  readonly recordingsBaseUrl: string;
  readonly businesses: readonly { readonly name: string; readonly apiKey: string; readonly v2Token: string }[];
}

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
    upstream: {
      baseUrl: upstream.baseUrl,
      v2BaseUrl: upstream.v2BaseUrl,
      recordingsBaseUrl: upstream.recordingsBaseUrl,
      rateLimit: options.rateLimit,
      pageSize: options.pageSize ?? 500,
    },
    businesses: upstream.businesses.map((business) => ({
      name: business.name,
      apiKey: business.apiKey,
      v2Token: business.v2Token,
      streams: [...options.streams],
    })),
    sink,
    backfill: { concurrency: options.concurrency ?? 4 },
    log: { level: 'silent' },
    ...options.extra,
  };
}

/** The validated config, built in code as the demo does (ports are ephemeral). */
export function benchConfig(upstream: UpstreamInfo, sink: SinkConfig, options: BenchConfigOptions): CallsyncConfig<SinkConfig> {
  return resolveConfig(benchDocument(upstream, sink, options), {
    sinkSchema: sinkConfigSchema,
    env: {},
    readFile: () => {
      throw new Error('the bench config reads no files');
    },
    file: '(bench)',
  }).config;
}
