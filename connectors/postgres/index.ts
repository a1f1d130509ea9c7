import type { SinkFactory } from '../../src/sink.js';
import { postgresConfigSchema } from './postgres-config.js';
import type { PostgresSinkConfig } from './postgres-config.js';
import { createPostgresSink } from './postgres-sink.js';

export type { PostgresSinkConfig } from './postgres-config.js';

/** `sink: { type: postgres, url, schema?, poolSize? }`: a shared warehouse. */
export const postgresSinkFactory = {
  type: 'postgres' as const,
  configSchema: postgresConfigSchema,
  create: createPostgresSink,
} satisfies SinkFactory<PostgresSinkConfig>;
