import { sinkConfigSchema, type SinkConfig } from '../../../../connectors/registry.js';
import { DEFAULT_STREAMS, resolveConfig, type CallsyncConfig } from '../../../config/index.js';

/** What a simulator (in-process or a child process) tells a client: URLs and credentials. */
export interface SimulatorEndpoint {
  readonly baseUrl: string;
  readonly v2BaseUrl: string;
  readonly recordingsBaseUrl: string;
  readonly businesses: readonly { readonly name: string; readonly apiKey: string; readonly v2Token: string }[];
}

interface SimulatorDocumentOptions {
  readonly sink: Readonly<Record<string, unknown>>;
  /** @defaultValue the default streams (`DEFAULT_STREAMS`) */
  readonly streams?: readonly string[];
  /** Merged into the `upstream` section (page size, rate limit, retry…). */
  readonly upstream?: Readonly<Record<string, unknown>>;
  /** Replaces the API key of the named businesses (wrong-credential cases). */
  readonly apiKeys?: Readonly<Record<string, string>>;
}

/** The sections a config for a simulator has before validation; callers add their own. */
interface SimulatorConfigDocument {
  readonly upstream: { readonly baseUrl: string; readonly v2BaseUrl: string; readonly recordingsBaseUrl: string; readonly [key: string]: unknown };
  readonly businesses: Array<{ name: string; apiKey: string; v2Token: string; streams: string[] }>;
  readonly sink: Readonly<Record<string, unknown>>;
}

/** The config document a user would write for a simulator, before validation. */
export function simulatorConfigDocument(endpoint: SimulatorEndpoint, options: SimulatorDocumentOptions): SimulatorConfigDocument {
  return {
    upstream: {
      baseUrl: endpoint.baseUrl,
      v2BaseUrl: endpoint.v2BaseUrl,
      recordingsBaseUrl: endpoint.recordingsBaseUrl,
      ...options.upstream,
    },
    businesses: endpoint.businesses.map((business) => ({
      name: business.name,
      apiKey: options.apiKeys?.[business.name] ?? business.apiKey,
      v2Token: business.v2Token,
      streams: [...(options.streams ?? DEFAULT_STREAMS)],
    })),
    sink: options.sink,
  };
}

/**
 * Validates a config built in code (the simulator's port is ephemeral, so there is no file):
 * the same schema and defaults as a file, with no environment and no secret files.
 */
export function inlineConfig(document: unknown, label: string): CallsyncConfig<SinkConfig> {
  return resolveConfig(document, {
    sinkSchema: sinkConfigSchema,
    env: {},
    readFile: () => {
      throw new Error(`${label}: a config built in code reads no files`);
    },
    file: label,
  }).config;
}

/** The demo's config: the simulator's three businesses into a SQLite file. */
export function demoConfig(endpoint: SimulatorEndpoint, databasePath: string): CallsyncConfig<SinkConfig> {
  return inlineConfig(simulatorConfigDocument(endpoint, { sink: { type: 'sqlite', path: databasePath } }), '(demo)');
}
