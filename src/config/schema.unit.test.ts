import { describe, expect, it } from 'vitest';
import { ConfigError, formatConfigError } from './errors.js';
import { resolveConfig } from './resolve.js';
import { buildConfigSchema } from './schema.js';
import { minimalConfig, testSinkSchema } from '../../test/support/config-fixtures.js';

const noFiles = (path: string): string => {
  throw Object.assign(new Error(`no ${path}`), { code: 'ENOENT' });
};

function resolve(document: unknown, env: NodeJS.ProcessEnv = {}) {
  return resolveConfig(document, { sinkSchema: testSinkSchema, env, readFile: noFiles, file: 'config/test.yaml' });
}

function problems(document: unknown): string[] {
  try {
    resolve(document);
  } catch (error) {
    if (error instanceof ConfigError) return formatConfigError(error).split('\n');
    throw error;
  }
  throw new Error('expected a ConfigError');
}

type Patch = (config: Record<string, unknown>) => void;
const business = (config: Record<string, unknown>, index = 0): Record<string, unknown> =>
  (config.businesses as Record<string, unknown>[])[index] as Record<string, unknown>;

describe('config schema', () => {
  it('applies every default and freezes the result', () => {
    const { config } = resolve(minimalConfig());
    expect(config).toEqual({
      upstream: {
        baseUrl: 'https://calls.example.com',
        v2BaseUrl: 'https://v2.calls.example.com',
        recordingsBaseUrl: 'https://calls.example.com',
        rateLimit: { requests: 60, perMs: 60_000 },
        timeoutMs: 30_000,
        maxWaitMs: 900_000,
        maxBodyBytes: 67_108_864,
        pageSize: 500,
        v2Limit: 100,
        v2MaxLimit: 1000,
        order: 'auto',
        maxFutureSkew: 3_600_000,
        retry: { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 30_000 },
        revisit: { window: 86_400_000, every: 3_600_000 },
      },
      businesses: [
        {
          name: 'acme',
          apiKey: 'key-acme',
          v2Token: 'tok-acme',
          streams: ['calls', 'voicemails', 'numbers'],
          v2Timezone: 'UTC',
          rateLimit: { requests: 60, perMs: 60_000 },
        },
      ],
      streams: [],
      columns: {},
      sink: { type: 'sqlite', path: './data/callsync.db' },
      schedule: { every: 60_000 },
      reconcile: { every: 86_400_000, repair: true, maxDeleteShare: 0.1, deleteAfter: 3_600_000 },
      redis: { url: 'redis://127.0.0.1:6379', prefix: 'callsync' },
      queue: { shards: 1 },
      server: { host: '127.0.0.1', port: 9464, allowedHosts: [] },
      metrics: { perBusiness: true },
      backfill: { concurrency: 4 },
      worker: { concurrency: 8, maxBudgetWaitMs: 2000, shutdownTimeoutMs: 25_000, lockDurationMs: 30_000, stalledIntervalMs: 30_000 },
      log: { level: 'info' },
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.businesses[0]?.streams)).toBe(true);
    expect(Object.isFrozen(config.sink)).toBe(true);
    expect(() => ((config.upstream.retry as { maxAttempts: number }).maxAttempts = 1)).toThrow(TypeError);
  });

  it('keeps explicit values, resolves per-business overrides and extra streams', () => {
    const document = {
      ...minimalConfig(),
      upstream: { baseUrl: 'https://calls.example.com/', recordingsBaseUrl: 'https://media.example.com/', rateLimit: false },
      businesses: [
        { name: 'acme', session: { email: 'ops@acme.example', password: 'pw' }, streams: ['calls', 'numbers', 'sms'], rateLimit: { requests: 10 } },
        { name: 'beta.co', apiKey: 'k', streams: ['numbers'] },
      ],
      streams: [
        { name: 'sms', path: '/sms', recordsKey: 'messages', paging: 'cursor', createdAtField: 'sent_at' },
        { name: 'forms', path: '/forms' },
      ],
      schedule: { every: '5m' },
    };
    const { config } = resolve(document);
    expect(config.upstream.baseUrl).toBe('https://calls.example.com');
    expect(config.upstream.recordingsBaseUrl).toBe('https://media.example.com');
    expect(config.upstream.rateLimit).toBe(false);
    expect(config.businesses[0]?.rateLimit).toEqual({ requests: 10, perMs: 60_000 });
    expect(config.businesses[1]?.rateLimit).toBe(false);
    expect(config.streams).toEqual([
      { name: 'sms', path: '/sms', recordsKey: 'messages', paging: 'cursor', idField: 'id', createdAtField: 'sent_at' },
      { name: 'forms', path: '/forms', recordsKey: 'forms', paging: 'offset', idField: 'id' },
    ]);
    expect(config.schedule.every).toBe(300_000);
  });

  it('exports metrics per business by default only below 1,000 businesses, unless told', () => {
    const withBusinesses = (count: number, metrics?: unknown) => ({
      ...minimalConfig(),
      businesses: Array.from({ length: count }, (_, i) => ({ name: `biz-${i}`, apiKey: `key-${i}`, v2Token: `tok-${i}` })),
      ...(metrics === undefined ? {} : { metrics }),
    });
    expect(resolve(withBusinesses(999)).config.metrics.perBusiness).toBe(true);
    expect(resolve(withBusinesses(1000)).config.metrics.perBusiness).toBe(false);
    expect(resolve(withBusinesses(1000, { perBusiness: 'auto' })).config.metrics.perBusiness).toBe(false);
    expect(resolve(withBusinesses(1000, { perBusiness: true })).config.metrics.perBusiness).toBe(true);
    expect(resolve(withBusinesses(2, { perBusiness: false })).config.metrics.perBusiness).toBe(false);
  });

  it('types the sink from the schema passed in', () => {
    const schema = buildConfigSchema(testSinkSchema);
    const parsed = schema.parse({ ...minimalConfig(), sink: { type: 'postgres', url: 'postgres://db/x' } });
    expect(parsed.sink.type === 'postgres' && parsed.sink.schema).toBe('callsync');
  });

  it.each<[string, Patch, string]>([
    ['missing baseUrl', (c) => delete (c.upstream as Record<string, unknown>).baseUrl, 'upstream.baseUrl: required (expected an http(s) URL)'],
    ['non-http baseUrl', (c) => ((c.upstream as Record<string, unknown>).baseUrl = 'ftp://x.example'), 'upstream.baseUrl: expected an http(s) URL'],
    ['unknown upstream key', (c) => ((c.upstream as Record<string, unknown>).baseURL = 'https://x'), 'upstream.baseURL: unknown key'],
    ['unknown top-level key', (c) => (c.sinks = {}), 'sinks: unknown key'],
    ['unknown business key', (c) => (business(c).api_key = 'x'), 'businesses[0].api_key: unknown key'],
    ['pageSize above 500', (c) => ((c.upstream as Record<string, unknown>).pageSize = 501), 'upstream.pageSize: Too big'],
    ['v2Limit zero', (c) => ((c.upstream as Record<string, unknown>).v2Limit = 0), 'upstream.v2Limit: Too small'],
    ['rateLimit true', (c) => ((c.upstream as Record<string, unknown>).rateLimit = true), 'upstream.rateLimit: expected { requests, perMs } or false'],
    [
      'rateLimit bad field',
      (c) => ((c.upstream as Record<string, unknown>).rateLimit = { requests: 'many' }),
      'upstream.rateLimit.requests: Invalid input: expected number, received string',
    ],
    [
      'retry max below base',
      (c) => ((c.upstream as Record<string, unknown>).retry = { baseDelayMs: 1000, maxDelayMs: 10 }),
      'upstream.retry.maxDelayMs: maxDelayMs (10) must be at least baseDelayMs (1000)',
    ],
    ['no businesses', (c) => (c.businesses = []), 'businesses: expected at least one business'],
    ['unsafe business name', (c) => (business(c).name = '../etc'), 'businesses[0].name: expected 1-64 characters'],
    [
      'duplicate business name',
      (c) => (c.businesses = [business(c), { ...business(c) }]),
      'businesses[1].name: duplicate business name "acme" (also businesses[0])',
    ],
    ['unknown stream', (c) => (business(c).streams = ['calls', 'sms']), 'businesses[0].streams[1]: unknown stream "sms"'],
    ['calls with v2_calls', (c) => (business(c).streams = ['calls', 'v2_calls']), 'businesses[0].streams: lists both "calls" and "v2_calls"'],
    ['stream twice', (c) => (business(c).streams = ['calls', 'calls']), 'businesses[0].streams: lists a stream twice'],
    [
      'no v1 credential',
      (c) => delete business(c).apiKey,
      'businesses[0].apiKey: required (or session: { email, password }) for v1 streams calls, numbers (the default streams are calls, voicemails, numbers)',
    ],
    [
      'apiKey and session',
      (c) => (business(c).session = { email: 'a@b.example', password: 'p' }),
      'businesses[0].session: give either apiKey or session, not both',
    ],
    [
      'session without password',
      (c) => {
        delete business(c).apiKey;
        business(c).session = { email: 'a@b.example' };
      },
      'businesses[0].session.password: required (expected string)',
    ],
    ['no v2Token for voicemails', (c) => delete business(c).v2Token, 'businesses[0].v2Token: required for v2 streams voicemails (the default streams'],
    [
      'no v2BaseUrl for v2_calls',
      (c) => {
        delete (c.upstream as Record<string, unknown>).v2BaseUrl;
        business(c).streams = ['v2_calls'];
      },
      'upstream.v2BaseUrl: required: business "acme" uses v2 streams v2_calls',
    ],
    ['bad time zone', (c) => (business(c).v2Timezone = 'Mars/Base'), 'businesses[0].v2Timezone: unknown IANA time zone "Mars/Base"'],
    ['extra stream with built-in name', (c) => (c.streams = [{ name: 'calls', path: '/calls' }]), 'streams[0].name: is reserved'],
    ['extra stream kysely_migration', (c) => (c.streams = [{ name: 'kysely_migration', path: '/m' }]), 'streams[0].name: is reserved'],
    ['extra stream kysely_ prefix', (c) => (c.streams = [{ name: 'kysely_anything', path: '/m' }]), 'streams[0].name: is reserved'],
    ['extra stream sqlite_stat1', (c) => (c.streams = [{ name: 'sqlite_stat1', path: '/s' }]), 'streams[0].name: is reserved'],
    ['extra stream sync_state', (c) => (c.streams = [{ name: 'sync_state', path: '/s' }]), 'streams[0].name: is reserved'],
    ['extra stream dead_letters', (c) => (c.streams = [{ name: 'dead_letters', path: '/d' }]), 'streams[0].name: is reserved'],
    ['extra stream with unsafe name', (c) => (c.streams = [{ name: 'SMS;drop', path: '/sms' }]), 'streams[0].name: expected a lower-case SQL identifier'],
    ['extra stream path escaping', (c) => (c.streams = [{ name: 'sms', path: '/../admin' }]), 'streams[0].path: must not contain ".."'],
    ['extra stream bad paging', (c) => (c.streams = [{ name: 'sms', path: '/sms', paging: 'pages' }]), 'streams[0].paging: Invalid option'],
    [
      'duplicate extra stream',
      (c) =>
        (c.streams = [
          { name: 'sms', path: '/sms' },
          { name: 'sms', path: '/sms2' },
        ]),
      'streams[1].name: duplicate stream name "sms" (also streams[0])',
    ],
    ['bad schedule', (c) => (c.schedule = { every: 'often' }), 'schedule.every: expected a positive duration'],
    ['zero schedule', (c) => (c.schedule = { every: 0 }), 'schedule.every: expected a positive duration'],
    ['bad redis url', (c) => (c.redis = { url: 'http://127.0.0.1:6379' }), 'redis.url: expected a redis:// or rediss:// URL'],
    [
      'redis url and cluster',
      (c) => (c.redis = { url: 'redis://10.0.0.5:6379', cluster: ['10.0.0.5:7000'] }),
      'redis.cluster: give either redis.url (one Redis) or redis.cluster (a Redis Cluster), not both',
    ],
    ['cluster node without port', (c) => (c.redis = { cluster: ['10.0.0.5'] }), 'redis.cluster[0]: expected host:port, such as 10.0.0.5:6379'],
    ['cluster empty', (c) => (c.redis = { cluster: [] }), 'redis.cluster: expected at least one host:port of the cluster'],
    [
      'consume a shard that does not exist',
      (c) => (c.queue = { shards: 4, consume: [1, 4] }),
      'queue.consume[1]: no shard 4: shards are 0 to 3 (queue.shards: 4)',
    ],
    ['consume a shard twice', (c) => (c.queue = { shards: 4, consume: [2, 2] }), 'queue.consume[1]: shard 2 listed twice'],
    ['zero shards', (c) => (c.queue = { shards: 0 }), 'queue.shards: expected a whole number of queues, 1 to 1024'],
    ['port out of range', (c) => (c.server = { port: 70_000 }), 'server.port: Too big'],
    [
      'allowed host with a port',
      (c) => (c.server = { allowedHosts: ['status.example.com:9464'] }),
      'server.allowedHosts[0]: expected a host name without port',
    ],
    ['concurrency zero', (c) => (c.backfill = { concurrency: 0 }), 'backfill.concurrency: Too small'],
    ['worker lock too short', (c) => (c.worker = { lockDurationMs: 10 }), 'worker.lockDurationMs: Too small'],
    ['bad metrics.perBusiness', (c) => (c.metrics = { perBusiness: 'yes' }), 'metrics.perBusiness: expected auto, true or false'],
    [
      'delete share as a percentage',
      (c) => (c.reconcile = { maxDeleteShare: 10 }),
      'reconcile.maxDeleteShare: expected a share between 0 and 1, such as 0.1 for 10 % (not a percentage)',
    ],
    ['delete count not whole', (c) => (c.reconcile = { maxDeleteCount: 2.5 }), 'reconcile.maxDeleteCount: expected a whole number of records'],
    ['bad deleteAfter', (c) => (c.reconcile = { deleteAfter: 'soon' }), 'reconcile.deleteAfter: expected a positive duration'],
    ['bad log level', (c) => (c.log = { level: 'verbose' }), 'log.level: Invalid option'],
    ['sink unknown type', (c) => (c.sink = { type: 'mysql' }), "sink.type: Invalid discriminator value. Expected 'sqlite' | 'postgres'"],
    ['sink missing field', (c) => (c.sink = { type: 'sqlite' }), 'sink.path: required (expected string)'],
  ])('%s', (_name, patch, expected) => {
    const document = structuredClone(minimalConfig());
    patch(document);
    expect(problems(document)).toContainEqual(expect.stringContaining(`config/test.yaml: ${expected}`));
  });

  it('takes a Redis Cluster instead of the default redis.url, and shards the queue', () => {
    const { config } = resolve({ ...minimalConfig(), redis: { cluster: ['10.0.0.5:7000', 'redis-b.internal:7001'] }, queue: { shards: 6, consume: [0, 3] } });
    expect(config.redis).toEqual({ url: undefined, cluster: ['10.0.0.5:7000', 'redis-b.internal:7001'], prefix: 'callsync' });
    expect(config.queue).toEqual({ shards: 6, consume: [0, 3] });
  });

  it('keeps server.allowedHosts in lower case without a trailing dot, as the Host check compares them', () => {
    const { config } = resolve({ ...minimalConfig(), server: { allowedHosts: ['Status.Example.COM.', 'ops-1'] } });
    expect(config.server.allowedHosts).toEqual(['status.example.com', 'ops-1']);
  });

  it('reports every field problem at once', () => {
    const document = { ...minimalConfig(), upstream: { baseUrl: 'nope', pageSize: 0 }, log: { level: 'loud' } };
    expect(problems(document)).toHaveLength(3);
  });
});
