import { connect, type Socket } from 'node:net';
import { pino } from 'pino';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/engine/metrics/index.js';
import { startStatusServer, type ExtraRoutes, type StatusServer } from '../../../src/entry/server/index.js';
import { STATUS_CONNECTION_LIMITS } from '../../../src/entry/server/connection-limits.js';
import { createRedisStatusStore } from '../../../src/engine/state/index.js';
import { redisUrl, uniqueName } from '../services.js';

const servers: StatusServer[] = [];
const clients: Redis[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(clients.splice(0).map((client) => client.quit()));
});

async function start(extraRoutes?: ExtraRoutes): Promise<StatusServer> {
  const redis = new Redis(redisUrl);
  clients.push(redis);
  const server = await startStatusServer({
    port: 0,
    statusStore: createRedisStatusStore({ redis, prefix: uniqueName('limits') }),
    metrics: createMetrics().registry,
    readiness: {},
    logger: pino({ level: 'silent' }),
    extraRoutes,
  });
  servers.push(server);
  return server;
}

/** A raw connection from `localAddress` that has written `head` (perhaps half a request) and what it got until closed. */
async function open(url: string, head: string, localAddress = '127.0.0.1'): Promise<{ socket: Socket; closed: Promise<string> }> {
  const { hostname, port } = new URL(url);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect({ host: hostname, port: Number(port), localAddress }, () => resolve(s));
    s.once('error', reject);
  });
  sockets.push(socket);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  socket.write(head);
  return { socket, closed };
}

const healthz = (host: string): string => `GET /healthz HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`;

/** Webhook routes that never answer: the port's own limits are what is under test. */
function silentRoutes(limits: ExtraRoutes['connectionLimits']): ExtraRoutes {
  return { owns: (path) => path.startsWith('/hooks'), handle: () => new Promise<void>(() => undefined), connectionLimits: limits };
}

// Issue 30 item 5: the receiver sharing the operators' port (no hooks.port) left that port unbounded.
describe('the status server bounds its connections before reading a request', () => {
  it('closes a connection past the per-address cap unanswered while another address is served', async () => {
    const server = await start(silentRoutes({ maxConnections: 100, maxConnectionsPerClient: 2, headersTimeoutMs: 10_000, requestTimeoutMs: 15_000 }));
    const { host } = new URL(server.url);
    await open(server.url, 'GET /healthz HTTP/1.1\r\n', '127.0.0.2');
    await open(server.url, 'GET /healthz HTTP/1.1\r\n', '127.0.0.2');
    const third = await open(server.url, healthz(host), '127.0.0.2');
    expect(await third.closed).toBe('');
    const other = await open(server.url, healthz(host), '127.0.0.3');
    expect(await other.closed).toMatch(/^HTTP\/1\.1 200/);
  });

  it('cuts a sender whose headers stall past the headers deadline', { timeout: 20_000 }, async () => {
    const server = await start(silentRoutes({ maxConnections: 100, maxConnectionsPerClient: 10, headersTimeoutMs: 300, requestTimeoutMs: 600 }));
    const stalled = await open(server.url, 'POST /hooks/acme HTTP/1.1\r\ncontent-length: 10\r\n');
    // Node answers 408 and closes; without a deadline the socket stays open until the test's own timeout.
    expect(await stalled.closed).toMatch(/^HTTP\/1\.1 408/);
  });

  it('applies the status port limits when no webhook routes are served', async () => {
    const server = await start();
    const { host } = new URL(server.url);
    for (let i = 0; i < STATUS_CONNECTION_LIMITS.maxConnectionsPerClient; i++) await open(server.url, 'GET /healthz HTTP/1.1\r\n', '127.0.0.4');
    const over = await open(server.url, healthz(host), '127.0.0.4');
    expect(await over.closed).toBe('');
  });
});
