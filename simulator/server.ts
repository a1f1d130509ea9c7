import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { ordinaryError } from './envelope.js';
import { NO_FAULT } from './faults.js';
import { handleV1 } from './handle-v1.js';
import { handleV2 } from './handle-v2.js';
import type { SimState } from './state.js';

/** v2 lives under this path prefix of the same server, standing in for its own host. */
export const V2_PREFIX = '/v2host';

async function dispatch(state: SimState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://simulator.invalid');
  if (url.pathname.startsWith(`${V2_PREFIX}/`)) {
    await handleV2(state, req, res, url.pathname.slice(V2_PREFIX.length), url.searchParams);
  } else if (url.pathname === '/api/v1' || url.pathname.startsWith('/api/v1/')) {
    await handleV1(state, req, res, url);
  } else {
    state.responder.send(res, { status: 404, body: ordinaryError(404, 'Not found') }, NO_FAULT);
  }
}

/** The node:http server; a handler failure is a 500, never a crashed simulator. */
export function createSimulatorServer(state: SimState): Server {
  const server = createServer((req, res) => {
    dispatch(state, req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      state.responder.send(res, { status: 500, body: ordinaryError(500, `Internal server error: ${message}`) }, NO_FAULT);
    });
  });
  server.keepAliveTimeout = 5000;
  return server;
}
