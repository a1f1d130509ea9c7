import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/engine/metrics/index.js';
import { startStatusServer } from '../../../src/entry/server/index.js';
import type { StatusServer, StatusServerOptions } from '../../../src/entry/server/index.js';
import { createRedisStatusStore, type StatusSnapshot, type StatusStore } from '../../../src/engine/state/index.js';
import type { StatusDocument } from '../../../src/entry/server/index.js';
import { redisUrl, uniqueName } from '../services.js';
import { deleteKeys } from '../worker/harness.js';
import { parsePrometheusText } from './prometheus-text.js';

const logger = pino({ level: 'silent' });
const redis = new Redis(redisUrl);
const servers: StatusServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeys(prefix);
  await redis.quit();
});

/** A real status store of its own (a fresh Redis prefix per call). */
function freshStore(): StatusStore {
  const prefix = uniqueName('http');
  prefixes.push(prefix);
  return createRedisStatusStore({ redis, prefix });
}

async function seededStore(): Promise<StatusStore> {
  const store = freshStore();
  await store.update('acme', 'calls', {
    state: 'syncing',
    lastSuccessAt: new Date(Date.now() - 60_000).toISOString(),
    increment: { recordsSynced: 42, pages: 3 },
    budget: { limit: 60, usedThisWindow: 12, resetAt: new Date(Date.now() + 30_000).toISOString() },
  });
  await store.update('acme', 'voicemails', { state: 'failed', lastError: 'upstream 500 from postgres://u:hunter2@db/x' });
  await store.markBusinessFailed('bolt', 'upstream 401: invalid API key');
  await store.recordActivity('acme', 42, Date.now());
  return store;
}

async function start(overrides: Partial<StatusServerOptions> = {}): Promise<StatusServer> {
  const metrics = createMetrics();
  metrics.recordsWritten({ business: 'acme', stream: 'calls' }, 42);
  const server = await startStatusServer({
    port: 0,
    statusStore: await seededStore(),
    metrics: metrics.registry,
    readiness: { redis: async () => void (await redis.ping()) },
    logger,
    ...overrides,
  });
  servers.push(server);
  return server;
}

describe('status server over real HTTP', () => {
  it('answers /healthz with ok, also to HEAD without a body', async () => {
    const { url } = await start();
    const get = await fetch(`${url}/healthz`);
    expect([get.status, await get.text()]).toEqual([200, 'ok\n']);
    const head = await fetch(`${url}/healthz`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('serves /status as JSON with every business, its failure and its streams, secrets scrubbed', async () => {
    const { url } = await start({ redact: (text) => text.replaceAll('hunter2', '[redacted]') });
    const response = await fetch(`${url}/status`);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as StatusSnapshot & StatusDocument;
    expect(body.nextCursor).toBeNull();
    expect(body.summary).toMatchObject({ businesses: 2, streams: 2, stoppedBusinesses: 1, needsPerson: 1, byState: { syncing: 1, failed: 1 } });
    expect(body.businesses.map((b) => [b.name, b.failed, b.streams.map((s) => s.stream)])).toEqual([
      ['acme', null, ['calls', 'voicemails']],
      ['bolt', 'upstream 401: invalid API key', []],
    ]);
    expect(body.businesses[0]?.streams[0]).toMatchObject({ state: 'syncing', recordsSynced: 42, pages: 3, lagSeconds: 60 });
    expect(body.businesses[0]?.activity).toHaveLength(60);
    expect(body.businesses[0]?.activity.at(-1)?.records).toBe(42);
    expect(JSON.stringify(body)).not.toContain('hunter2');
    expect(body.businesses[0]?.streams[1]?.lastError).toBe('upstream 500 from postgres://[redacted]@db/x');
  });

  it('serves the status page as self-contained HTML with a strict content security policy: the summary, then what needs a person', async () => {
    const { url } = await start({ redact: (text) => text.replaceAll('hunter2', '[redacted]') });
    const response = await fetch(`${url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toMatch(/data-count="needs_person"[^>]*><strong>1<\/strong>/);
    expect(html).toMatch(/<tr data-business="acme" data-stream="voicemails">.*?data-state="failed"/);
    // A healthy stream is counted, not listed; the chart is on the business's own page.
    expect(html).not.toContain('data-stream="calls"');
    expect(html).not.toContain('<svg');
    expect(html).toContain('Stopped businesses: 1');
    expect(html).toContain('<meta http-equiv="refresh" content="5">');
    expect(html).not.toContain('hunter2');
  });

  it("serves each business's own page with its chart and every stream, and 404 for one that never reported", async () => {
    const { url } = await start({ redact: (text) => text.replaceAll('hunter2', '[redacted]') });
    const response = await fetch(`${url}/business/acme`);
    expect([response.status, response.headers.get('content-security-policy')]).toEqual([200, expect.stringContaining("default-src 'none'")]);
    const html = await response.text();
    expect(html).toMatch(/<tr data-business="acme" data-stream="calls">.*?data-state="syncing"/);
    expect(html).toMatch(/<tr data-business="acme" data-stream="voicemails">.*?data-state="failed"/);
    expect(html).toContain('42 total, peak 42');
    expect(html).not.toContain('hunter2');
    expect((await fetch(`${url}/business/bolt`)).status).toBe(200);
    const missing = await fetch(`${url}/business/nosuch`);
    expect([missing.status, await missing.text()]).toEqual([404, expect.stringContaining('No business named nosuch has reported.')]);
    expect((await fetch(`${url}/business/`)).status).toBe(404);
  });

  it('pages /status with ?limit and ?cursor, filters with ?state and ?business, and refuses a bad query naming the parameter', async () => {
    const store = freshStore();
    for (let i = 0; i < 25; i += 1) {
      await store.update(`biz-${String(i).padStart(2, '0')}`, 'calls', { state: i % 10 === 3 ? 'failed' : 'idle', lastSuccessAt: new Date().toISOString() });
    }
    const { url } = await start({ statusStore: store });
    const names: string[] = [];
    let next: string | null = `${url}/status?limit=10`;
    while (next !== null) {
      const body = (await (await fetch(next)).json()) as StatusDocument;
      expect(body.summary).toMatchObject({ businesses: 25, streams: 25, needsPerson: 3 });
      expect(body.businesses.every((b) => b.activity.length === 60)).toBe(true);
      names.push(...body.businesses.map((b) => b.name));
      next = body.nextCursor === null ? null : `${url}/status?limit=10&cursor=${body.nextCursor}`;
    }
    expect(names).toEqual(Array.from({ length: 25 }, (_, i) => `biz-${String(i).padStart(2, '0')}`));
    const failed = (await (await fetch(`${url}/status?state=failed&business=BIZ-1`)).json()) as StatusDocument;
    expect(failed.businesses.map((b) => [b.name, b.streams.map((s) => s.state)])).toEqual([['biz-13', ['failed']]]);
    const bad = await fetch(`${url}/status?limit=5000`);
    expect([bad.status, await bad.json()]).toEqual([400, { error: 'limit: expected a whole number of businesses from 1 to 1000, got "5000"' }]);
    const badPage = await fetch(`${url}/?state=nope`);
    expect([badPage.status, await badPage.text()]).toEqual([400, expect.stringContaining('Bad query: state: unknown &quot;nope&quot;')]);
  });

  it('serves /metrics in the Prometheus text format with the callsync and process metrics', async () => {
    const { url } = await start();
    const response = await fetch(`${url}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusText(await response.text());
    expect(families.get('callsync_records_written_total')?.samples).toContainEqual({
      name: 'callsync_records_written_total',
      labels: { business: 'acme', stream: 'calls' },
      value: 42,
    });
    expect(families.get('callsync_job_duration_seconds')?.type).toBe('histogram');
    expect(families.has('process_cpu_user_seconds_total')).toBe(true);
  });

  it('reports ready when every check passes, and names the failing check with its error otherwise', async () => {
    const ready = await start();
    const ok = await fetch(`${ready.url}/readyz`);
    expect([ok.status, await ok.json()]).toEqual([200, { ready: true, failing: [], checks: { redis: { ok: true } } }]);

    const { url } = await start({
      readinessTimeoutMs: 200,
      readiness: {
        redis: async () => void (await redis.ping()),
        sink: () => Promise.reject(new Error('connect ECONNREFUSED postgres://callsync:s3cret@127.0.0.1:1/db')),
        webhook: () => new Promise<void>(() => undefined),
      },
    });
    const failing = await fetch(`${url}/readyz`);
    expect(failing.status).toBe(503);
    expect(await failing.json()).toEqual({
      ready: false,
      failing: ['sink', 'webhook'],
      checks: {
        redis: { ok: true },
        sink: { ok: false, error: 'connect ECONNREFUSED postgres://[redacted]@127.0.0.1:1/db' },
        webhook: { ok: false, error: 'no answer within 200 ms' },
      },
    });
  });

  it('requires the bearer token on every route but /healthz when a token is set', async () => {
    const { url } = await start({ token: 'op-token-123' });
    const auth = { authorization: 'Bearer op-token-123' };
    for (const path of ['/', '/status', '/business/acme', '/metrics', '/readyz', '/nope']) {
      const none = await fetch(`${url}${path}`);
      expect([path, none.status, none.headers.get('www-authenticate')]).toEqual([path, 401, 'Bearer']);
      const wrong = await fetch(`${url}${path}`, { headers: { authorization: 'Bearer op-token-124' } });
      expect([path, wrong.status]).toEqual([path, 401]);
      const prefix = await fetch(`${url}${path}`, { headers: { authorization: 'Bearer op-token-12' } });
      expect([path, prefix.status]).toEqual([path, 401]);
      const right = await fetch(`${url}${path}`, { headers: auth });
      expect([path, right.status]).toEqual([path, path === '/nope' ? 404 : 200]);
    }
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const body = await (await fetch(`${url}/status`)).text();
    expect(body).not.toContain('op-token-123');
  });

  it('answers 404 for unknown paths and 405 for other methods on known ones', async () => {
    const { url } = await start();
    expect((await fetch(`${url}/admin`)).status).toBe(404);
    expect((await fetch(`${url}/status/`)).status).toBe(404);
    const post = await fetch(`${url}/status`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('answers 503 naming the cause when the status store cannot be read, and keeps serving', async () => {
    const broken: StatusStore = {
      ...freshStore(),
      list: () => Promise.reject(new Error('redis://:pw@cache:6379 connection lost')),
    };
    const { url } = await start({ statusStore: broken });
    const status = await fetch(`${url}/status`);
    expect([status.status, await status.json()]).toEqual([503, { error: 'unavailable: redis://[redacted]@cache:6379 connection lost' }]);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(503);
    expect(await page.text()).toContain('Status unavailable');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('shares one read of every stream between requests close together, and never keeps a failed read', async () => {
    const store = await seededStore();
    let reads = 0;
    let failNext = false;
    const counted: StatusStore = {
      ...store,
      list: () => {
        reads += 1;
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error('connection lost'));
        }
        return store.list();
      },
    };
    let clock = Date.now();
    const { url } = await start({ statusStore: counted, now: () => clock, snapshotMaxAgeMs: 2_000 });
    await Promise.all([fetch(`${url}/status`), fetch(`${url}/`), fetch(`${url}/business/acme`), fetch(`${url}/status?limit=1`)]);
    expect(reads).toBe(1);
    await store.update('acme', 'calls', { state: 'failed', lastError: 'later' });
    clock += 1_999;
    const stale = (await (await fetch(`${url}/status`)).json()) as StatusDocument;
    expect([reads, stale.summary.byState.failed]).toEqual([1, 1]);
    clock += 1;
    const fresh = (await (await fetch(`${url}/status`)).json()) as StatusDocument;
    expect([reads, fresh.summary.byState.failed]).toEqual([2, 2]);
    clock += 2_000;
    failNext = true;
    expect((await fetch(`${url}/status`)).status).toBe(503);
    expect((await fetch(`${url}/status`)).status).toBe(200);
    expect(reads).toBe(4);
  });

  it('stops listening on close, and closing twice is harmless', async () => {
    const server = await start();
    await server.close();
    await server.close();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
