import type { SinkDeps, SinkFactory } from '../../src/sink.js';
import { postgresConfigSchema } from './postgres-config.js';
import type { PostgresSinkConfig } from './postgres-config.js';

export type { PostgresSinkConfig } from './postgres-config.js';

/** `sink: { type: postgres, url, schema?, poolSize? }`: a shared warehouse. */
export const postgresSinkFactory = {
  type: 'postgres' as const,
  configSchema: postgresConfigSchema,
  // Loaded on use: a run that writes to one target never loads the others' drivers.
  create: async (config: PostgresSinkConfig, deps: SinkDeps) => (await import('./postgres-sink.js')).createPostgresSink(config, deps),
} satisfies SinkFactory<PostgresSinkConfig>;
