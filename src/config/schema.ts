import { z } from 'zod';
import { recordingsConfigSchema } from '../../connectors/recordings/config.js';
import { columnsSchema } from './columns.js';
import { hooksSchema } from './hooks-section.js';
import { checkConfig } from './cross-checks.js';
import type { DeepReadonly } from './freeze.js';
import {
  backfillSchema,
  businessSchema,
  extraStreamSchema,
  logSchema,
  metricsSchema,
  PER_BUSINESS_METRICS_BELOW,
  queueSchema,
  reconcileSchema,
  redisSchema,
  scheduleSchema,
  serverSchema,
  upstreamSchema,
  workerSchema,
} from './sections.js';

const sections = {
  upstream: upstreamSchema,
  businesses: z.array(businessSchema).min(1, 'expected at least one business'),
  streams: z.array(extraStreamSchema).default([]),
  columns: columnsSchema,
  schedule: scheduleSchema.prefault({}),
  reconcile: reconcileSchema.prefault({}),
  redis: redisSchema.prefault({}),
  queue: queueSchema.prefault({}),
  server: serverSchema.prefault({}),
  metrics: metricsSchema.prefault({}),
  backfill: backfillSchema.prefault({}),
  worker: workerSchema.prefault({}),
  log: logSchema.prefault({}),
  hooks: hooksSchema.optional(),
  recordings: recordingsConfigSchema.optional(),
};

// The object's output type, so an optional section (`hooks`) stays an optional key.
type Sections = z.output<z.ZodObject<typeof sections>>;

function resolveDefaults<T extends Sections>(config: T) {
  const rateLimit = config.upstream.rateLimit;
  return {
    ...config,
    upstream: { ...config.upstream, recordingsBaseUrl: config.upstream.recordingsBaseUrl ?? config.upstream.baseUrl },
    businesses: config.businesses.map((business) => ({ ...business, rateLimit: business.rateLimit ?? rateLimit })),
    streams: config.streams.map((stream) => ({ ...stream, recordsKey: stream.recordsKey ?? stream.name })),
    metrics: {
      ...config.metrics,
      perBusiness: config.metrics.perBusiness === 'auto' ? config.businesses.length < PER_BUSINESS_METRICS_BELOW : config.metrics.perBusiness,
    },
  };
}

/**
 * The config file's schema with `sink` validated by `sinkSchema` (built by the connector
 * registry from every connector's schema). Unknown keys anywhere are errors; defaults are
 * applied; `recordingsBaseUrl` defaults to `baseUrl`, each business's `rateLimit` to
 * `upstream.rateLimit`, each extra stream's `recordsKey` to its name, `metrics.perBusiness: auto`
 * to whether there are fewer than {@link PER_BUSINESS_METRICS_BELOW} businesses.
 */
export function buildConfigSchema<S extends z.ZodType>(sinkSchema: S) {
  return z
    .strictObject({ ...sections, sink: sinkSchema })
    .superRefine(checkConfig)
    .transform(resolveDefaults);
}

/** The `sink` section when the connector is not known statically. */
type GenericSinkConfig = { type: string } & Record<string, unknown>;

type Resolved = ReturnType<typeof resolveDefaults<Sections & { sink: unknown }>>;

/** A validated, defaulted, deeply frozen config; `TSink` is the sink section's type. */
export type CallsyncConfig<TSink = GenericSinkConfig> = DeepReadonly<Omit<Resolved, 'sink'>> & { readonly sink: TSink };
export type UpstreamConfig = CallsyncConfig['upstream'];
