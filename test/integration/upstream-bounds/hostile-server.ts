import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the hostile server did, for the test to check it was not read whole. */
export interface HostileServer {
  readonly baseUrl: string;
  /** Bytes of the huge body written before the client hung up. */
  readonly hugeBytesWritten: () => number;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x20);

/**
 * A tiny upstream that misbehaves on purpose: `/api/v1/huge` streams a 1 GiB body (one reused
 * 64 KiB chunk, with backpressure, so the server itself stays small), `/api/v1/trickle` sends one
 * byte every 100 ms forever, `/api/v1/retry-after` answers 429 with `Retry-After: 999999999` once,
 * `/api/v1/year-3000` answers 200 with a spent budget that resets in the year 3000.
 */
export async function startHostileServer(): Promise<HostileServer> {
  let hugeWritten = 0;
  const refused = new Set<string>();
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/api/v1/huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":{"calls":[],"pad":"');
      const total = 1024 * 1024 * 1024;
      const pump = (): void => {
        while (hugeWritten < total && !res.destroyed) {
          hugeWritten += CHUNK.length;
          if (!res.write(CHUNK)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end('"}}');
      };
      pump();
      return;
    }
    if (path === '/api/v1/trickle') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (path === '/api/v1/retry-after' && !refused.has(path)) {
      refused.add(path);
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '999999999' });
      res.end(JSON.stringify({ error: 'rate_limit_exceeded', message: 'come back much later' }));
      return;
    }
    if (path === '/api/v1/year-3000' && !refused.has(path)) {
      refused.add(path);
      const reset = String(Date.UTC(3000, 0, 1) / 1000);
      res.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset });
      res.end(JSON.stringify({ data: { calls: [], has_more: false } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: { calls: [{ id: 'c1' }], has_more: false } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    hugeBytesWritten: () => hugeWritten,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
