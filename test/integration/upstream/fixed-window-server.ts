import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tiny upstream on loopback that counts requests in fixed windows aligned to the epoch, like the service. */
export interface FixedWindowServer {
  readonly baseUrl: string;
  /** Served (non-429) requests per window index. */
  readonly served: Map<number, number>;
  rejected: number;
  /** Requests per path, to check retries. */
  readonly hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startFixedWindowServer(options: { limit: number; windowMs: number; apiKey: string }): Promise<FixedWindowServer> {
  const served = new Map<number, number>();
  const hits = new Map<string, number>();
  const state = { rejected: 0 };

  function handle(request: IncomingMessage, response: ServerResponse): void {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const hit = (hits.get(path) ?? 0) + 1;
    hits.set(path, hit);
    if (request.headers.authorization !== `Bearer ${options.apiKey}`) {
      response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: '401', message: 'Invalid API key' } }));
      return;
    }
    if (path === '/api/v1/truncated' && hit === 1) {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
      response.write('{"data":{"calls":[');
      setTimeout(() => response.socket?.destroy(), 10);
      return;
    }
    if (path === '/api/v1/reset' && hit === 1) {
      request.socket.destroy();
      return;
    }
    if (path === '/api/v1/silent') return; // never answers: the headers timeout must fire
    const now = Date.now();
    const window = Math.floor(now / options.windowMs);
    const used = (served.get(window) ?? 0) + 1;
    const resetSeconds = (((window + 1) * options.windowMs) / 1000).toFixed(3);
    const headers = { 'content-type': 'application/json', 'x-ratelimit-limit': String(options.limit), 'x-ratelimit-reset': resetSeconds };
    if (used > options.limit) {
      state.rejected += 1;
      const retryAfter = Math.ceil(((window + 1) * options.windowMs - now) / 1000);
      response
        .writeHead(429, { ...headers, 'x-ratelimit-remaining': '0', 'retry-after': String(retryAfter) })
        .end(JSON.stringify({ error: 'rate_limit_exceeded', message: `Limit ${options.limit}; retry in ${retryAfter} s`, retry_after: retryAfter }));
      return;
    }
    served.set(window, used);
    response
      .writeHead(200, { ...headers, 'x-ratelimit-remaining': String(options.limit - used) })
      .end(JSON.stringify({ data: { calls: [], has_more: false } }));
  }

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    served,
    hits,
    get rejected() {
      return state.rejected;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
