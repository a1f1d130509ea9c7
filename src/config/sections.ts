import { z } from 'zod';
import { isValidTimeZone } from '../normalize/zone-offset.js';
import { BUILT_IN_STREAMS, DEFAULT_STREAMS } from '../source/streams/builtin-streams.js';
import { VIEW_NAMES } from './columns.js';
import { retrySchema } from '../http/index.js';
import { parseDurationMs } from './duration.js';

/** Stream names come from the one catalogue of built-in streams. */
export { BUILT_IN_STREAMS, DEFAULT_STREAMS, V2_STREAMS } from '../source/streams/builtin-streams.js';

/** Table names an extra stream may not take: the built-ins, the bookkeeping tables and the report views. */
const RESERVED_STREAM_NAMES: readonly string[] = [...BUILT_IN_STREAMS, 'sync_state', 'dead_letters', ...VIEW_NAMES];

/** Prefixes of tables the SQL engines and the migrator own (`kysely_migration`, `sqlite_stat1`, `pg_*`). */
const RESERVED_STREAM_PREFIXES: readonly string[] = ['kysely_', 'sqlite_', 'pg_'];

/** An error message that says `required` for a missing value and the found type otherwise. */
function expected(what: string): (issue: { input?: unknown }) => string {
  return (issue) => {
    if (issue.input === undefined) return `required (${what})`;
    const found = issue.input === null ? 'null' : Array.isArray(issue.input) ? 'an array' : typeof issue.input;
    return `${what}, got ${typeof issue.input === 'string' ? 'a string that is not one' : found}`;
  };
}

const httpUrl = z
  .url({ protocol: /^https?$/, error: expected('expected an http(s) URL') })
  // One canonical form so that joins never produce `//`.
  .transform((url) => url.replace(/\/+$/, ''));

const rateLimitSchema = z.union(
  [
    z.literal(false),
    z.strictObject({
      requests: z.int().positive().default(60),
      perMs: z.int().positive().default(60_000),
    }),
  ],
  { error: 'expected { requests, perMs } or false' },
);

/** A duration such as "60s", "5m", "1h" or whole milliseconds, parsed to milliseconds. */
export function durationMs(defaultValue: string) {
  return z
    .union([z.number(), z.string()], { error: 'expected a duration such as "60s" or a number of milliseconds' })
    .transform((value, ctx) => {
      const ms = parseDurationMs(value);
      if (ms === undefined)
        ctx.addIssue({ code: 'custom', message: `expected a positive duration such as "60s", "5m", "1h" or whole milliseconds, got ${JSON.stringify(value)}` });
      return ms ?? 0;
    })
    .prefault(defaultValue);
}

const listOrderSetting = z.enum(['auto', 'oldest_first', 'newest_first']).default('auto');

export const upstreamSchema = z.strictObject({
  baseUrl: httpUrl,
  v2BaseUrl: httpUrl.optional(),
  recordingsBaseUrl: httpUrl.optional(),
  rateLimit: rateLimitSchema.prefault({}),
  // One deadline per request, headers and body together.
  timeoutMs: z.int().positive().default(30_000),
  // Longest wait a server's Retry-After or X-RateLimit-Reset may impose (at most a day).
  maxWaitMs: z.int().positive().max(86_400_000).default(900_000),
  // Largest response body read; a longer one is a transient failure (64 MiB).
  maxBodyBytes: z.int().positive().default(67_108_864),
  pageSize: z.int().min(1).max(500).default(500),
  v2Limit: z.int().min(1).max(1000).default(100),
  // v2 has no paging: the largest `limit` a walk widens to before it reports a gap.
  v2MaxLimit: z.int().min(1).max(100_000).default(1_000),
  // Which end of the v1 lists comes first; the spec does not say. `auto` detects it from the records.
  order: listOrderSetting,
  // A record dated further ahead than this never moves a high-water mark (a clock-skewed upstream).
  maxFutureSkew: durationMs('1h'),
  retry: retrySchema({ maxAttempts: 8 }),
  caFile: z.string().min(1).optional(),
  // Late upstream changes (a transcription that appears after the call): recent records are read again.
  revisit: z
    .union([z.literal(false), z.strictObject({ window: durationMs('24h'), every: durationMs('1h') })], {
      error: 'expected { window, every } or false',
    })
    .prefault({}),
});

export const businessSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'expected 1-64 characters: letters, digits, "_", "." or "-", starting with a letter or digit'),
  apiKey: z.string().min(1).optional(),
  session: z.strictObject({ email: z.email(), password: z.string().min(1) }).optional(),
  v2Token: z.string().min(1).optional(),
  streams: z
    .array(z.string().min(1))
    .min(1)
    .refine((streams) => new Set(streams).size === streams.length, { error: 'lists a stream twice' })
    .default([...DEFAULT_STREAMS]),
  v2Timezone: z
    .string()
    .refine(isValidTimeZone, { error: (issue) => `unknown IANA time zone ${JSON.stringify(issue.input)}` })
    .default('UTC'),
  rateLimit: rateLimitSchema.optional(),
  // This business's own secret for webhook deliveries (`hooks`); without it `hooks.secret` applies.
  webhookSecret: z.string().min(1).optional(),
});

export const extraStreamSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'expected a lower-case SQL identifier (^[a-z_][a-z0-9_]{0,62}$)')
    .refine((name) => !RESERVED_STREAM_NAMES.includes(name) && !RESERVED_STREAM_PREFIXES.some((prefix) => name.startsWith(prefix)), {
      error: `is reserved (${RESERVED_STREAM_NAMES.join(', ')} and names starting with ${RESERVED_STREAM_PREFIXES.join(', ')}): choose another name`,
    }),
  path: z
    .string()
    .regex(/^\/[A-Za-z0-9_\-./]*$/, 'expected a path under /api/v1 starting with "/"')
    .refine((path) => !path.split('/').includes('..'), { error: 'must not contain ".."' }),
  recordsKey: z.string().min(1).optional(),
  paging: z.enum(['cursor', 'offset', 'page', 'none']).default('offset'),
  idField: z.string().min(1).default('id'),
  createdAtField: z.string().min(1).optional(),
  /** @defaultValue `upstream.order` */
  order: listOrderSetting.unwrap().optional(),
});

export const scheduleSchema = z.strictObject({ every: durationMs('60s') });

/**
 * Reconciliation: in `run` a full id-level comparison every `every`, found drift repaired unless
 * `repair` is false. The deletion guard (every repair): a walk that would mark more than
 * `maxDeleteShare` of the stream's stored records, or more than `maxDeleteCount`, marks nothing
 * until a person confirms; below that, a record is marked only when two whole walks at least
 * `deleteAfter` apart both missed it.
 */
export const reconcileSchema = z.strictObject({
  every: durationMs('24h'),
  repair: z.boolean().default(true),
  maxDeleteShare: z
    .number({ error: 'expected a share between 0 and 1, such as 0.1 for 10 %' })
    .min(0, 'expected a share between 0 and 1, such as 0.1 for 10 %')
    .max(1, 'expected a share between 0 and 1, such as 0.1 for 10 % (not a percentage)')
    .default(0.1),
  maxDeleteCount: z.int({ error: 'expected a whole number of records' }).min(0).optional(),
  deleteAfter: durationMs('1h'),
});

/** Where `redis.url` points when neither it nor `redis.cluster` is given. */
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

const clusterNode = z.string().regex(/^[^\s:/]+:\d{1,5}$/, 'expected host:port, such as 10.0.0.5:6379');

/**
 * A single Redis (`url`) or a Redis Cluster (`cluster`: seed nodes), never both; `url` defaults
 * to {@link DEFAULT_REDIS_URL} when neither is given.
 */
export const redisSchema = z
  .strictObject({
    url: z.url({ protocol: /^rediss?$/, error: expected('expected a redis:// or rediss:// URL') }).optional(),
    cluster: z
      .array(clusterNode, { error: expected('expected a list of host:port') })
      .min(1, 'expected at least one host:port of the cluster')
      .optional(),
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'expected 1-64 characters: letters, digits, "_", ".", ":" or "-"')
      .default('callsync'),
  })
  .superRefine((redis, ctx) => {
    if (redis.url !== undefined && redis.cluster !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['cluster'], message: 'give either redis.url (one Redis) or redis.cluster (a Redis Cluster), not both' });
    }
  })
  .transform(({ url, cluster, prefix }) =>
    cluster === undefined ? { url: url ?? DEFAULT_REDIS_URL, cluster: undefined, prefix } : { url: undefined, cluster, prefix },
  );

/**
 * How `run` spreads businesses over BullMQ queues: `shards` queues (a business's shard is a
 * stable hash of its name), of which a worker consumes `consume` (default: all).
 */
export const queueSchema = z
  .strictObject({
    shards: z.int({ error: 'expected a whole number of queues, 1 to 1024' }).min(1).max(1_024).default(1),
    consume: z
      .array(z.int({ error: 'expected a shard index' }).min(0))
      .min(1, 'expected at least one shard index')
      .optional(),
  })
  .superRefine((queue, ctx) => {
    const seen = new Set<number>();
    queue.consume?.forEach((shard, index) => {
      if (shard >= queue.shards)
        ctx.addIssue({
          code: 'custom',
          path: ['consume', index],
          message: `no shard ${shard}: shards are 0 to ${queue.shards - 1} (queue.shards: ${queue.shards})`,
        });
      if (seen.has(shard)) ctx.addIssue({ code: 'custom', path: ['consume', index], message: `shard ${shard} listed twice` });
      seen.add(shard);
    });
  });

const hostNameSetting = z
  .string()
  .regex(
    /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?$/,
    'expected a host name without port, such as status.example.com',
  )
  .transform((name) => name.toLowerCase().replace(/\.$/, ''));

export const serverSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.int().min(0).max(65_535).default(9464),
  token: z.string().min(1).optional(),
  // Names the status server answers to besides IP literals and localhost (DNS rebinding: docs/operations.md "Health, metrics and the status page").
  allowedHosts: z.array(hostNameSetting, { error: 'expected a list of host names' }).default([]),
});

/** Below this many businesses `metrics.perBusiness: auto` exports series per business. */
export const PER_BUSINESS_METRICS_BELOW = 1_000;

/** `/metrics` of `run`: `perBusiness` auto (on below {@link PER_BUSINESS_METRICS_BELOW} businesses), true or false. */
export const metricsSchema = z.strictObject({
  perBusiness: z.union([z.literal('auto'), z.boolean()], { error: 'expected auto, true or false' }).default('auto'),
});

export const backfillSchema = z.strictObject({ concurrency: z.int().min(1).max(64).default(4) });

/** Settings of `run`'s BullMQ workers; see docs/configuration.md "Run settings". */
export const workerSchema = z.strictObject({
  concurrency: z.int().min(1).max(256).default(8),
  maxBudgetWaitMs: z.int().min(0).default(2_000),
  shutdownTimeoutMs: z.int().positive().default(25_000),
  lockDurationMs: z.int().min(1_000).default(30_000),
  stalledIntervalMs: z.int().min(1_000).default(30_000),
});

export const logSchema = z.strictObject({
  level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
