import { request } from 'node:http';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/engine/metrics/index.js';
import { startStatusServer, type StatusServer, type StatusServerOptions } from '../../../src/entry/server/index.js';
import { createRedisStatusStore } from '../../../src/engine/state/index.js';
import { Redis } from 'ioredis';
import { redisUrl, uniqueName } from '../services.js';

const servers: StatusServer[] = [];
const clients: Redis[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(clients.splice(0).map((client) => client.quit()));
});

async function start(overrides: Partial<StatusServerOptions> = {}): Promise<StatusServer> {
  const redis = new Redis(redisUrl);
  clients.push(redis);
  const server = await startStatusServer({
    port: 0,
    statusStore: createRedisStatusStore({ redis, prefix: uniqueName('host') }),
    metrics: createMetrics().registry,
    readiness: {},
    logger: pino({ level: 'silent' }),
    ...overrides,
  });
  servers.push(server);
  return server;
}

/** GET with a `Host` header of our choosing, as a browser sends after DNS rebinding (fetch will not set it). */
async function get(base: string, path: string, host: string): Promise<{ status: number; body: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path: url.pathname, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const ROUTES = ['/', '/status', '/business/acme', '/metrics', '/readyz', '/healthz'];

// Issue 30 item 6: every route answered whatever the Host, so a page rebinding its own name to 127.0.0.1 read them.
describe('the status server and the Host header', () => {
  it('answers 421 to a name it was not given, on every route, and names the setting to fix', async () => {
    const { url } = await start();
    for (const path of ROUTES) {
      const answer = await get(url, path, 'attacker.example:9464');
      expect([path, answer.status]).toEqual([path, 421]);
      expect(answer.body).toContain('server.allowedHosts');
      expect(answer.body).not.toContain('callsync_');
    }
  });

  it('answers IP literals, localhost and the configured names, with or without port, in any case', async () => {
    const { url } = await start({ allowedHosts: ['status.example.com'] });
    const port = new URL(url).port;
    for (const host of [
      '127.0.0.1',
      `127.0.0.1:${port}`,
      '[::1]',
      `[::1]:${port}`,
      '10.1.2.3:80',
      'localhost',
      `LocalHost:${port}`,
      'status.example.com',
      `Status.Example.COM.:${port}`,
    ]) {
      for (const path of ['/status', '/healthz']) expect([host, path, (await get(url, path, host)).status]).toEqual([host, path, 200]);
    }
    for (const host of ['example.com', 'status.example.com.evil', 'localhost.evil', 'sub.status.example.com', '[::1', 'localhost:abc']) {
      expect([host, (await get(url, '/status', host)).status]).toEqual([host, 421]);
    }
  });

  it('leaves routes that authenticate each request themselves (the webhook receiver) to answer any Host', async () => {
    const { url } = await start({
      extraRoutes: {
        owns: (path) => path.startsWith('/hooks/'),
        handle: (_req, res) => Promise.resolve(void res.writeHead(202).end()),
      },
    });
    expect((await get(url, '/hooks/acme', 'hooks.public.example')).status).toBe(202);
    expect((await get(url, '/status', 'hooks.public.example')).status).toBe(421);
  });
});
