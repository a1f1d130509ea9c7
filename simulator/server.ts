import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { ordinaryError } from './envelope.js';
import { NO_FAULT } from './faults.js';
import { handleV1 } from './handle-v1.js';
import { handleV2 } from './handle-v2.js';
import { MEDIA_PREFIX } from './recording-directory.js';
import { handleRecording } from './recording-route.js';
import type { SimState } from './state.js';

/** v2 lives under this path prefix of the same server, standing in for its own host. */
export const V2_PREFIX = '/v2host';

/** Which server: the API's (v1, v2 and the media links) or the second one (the provider's links, the media links, and the foreign name). */
export type ServerRole = 'api' | 'recordings';

async function dispatch(state: SimState, role: ServerRole, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://simulator.invalid');
  const path = url.pathname;
  if (path.startsWith(`${MEDIA_PREFIX}/`)) {
    await handleRecording(state, req, res, 'media', path.slice(MEDIA_PREFIX.length));
  } else if (role === 'recordings') {
    await handleRecording(state, req, res, 'provider', path);
  } else if (path.startsWith(`${V2_PREFIX}/`)) {
    await handleV2(state, req, res, path.slice(V2_PREFIX.length), url.searchParams);
  } else if (path === '/api/v1' || path.startsWith('/api/v1/')) {
    await handleV1(state, req, res, url);
  } else {
    state.responder.send(res, { status: 404, body: ordinaryError(404, 'Not found') }, NO_FAULT);
  }
}

/**
 * A node:http server of the simulator; a handler failure is a 500, never a crashed simulator.
 * `state` is read per request: the servers listen first, so the data can name their URLs.
 */
export function createSimulatorServer(state: () => SimState | undefined, role: ServerRole): Server {
  const server = createServer((req, res) => {
    const current = state();
    if (current === undefined) {
      res.writeHead(503, { 'retry-after': '1' }).end();
      return;
    }
    dispatch(current, role, req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      current.responder.send(res, { status: 500, body: ordinaryError(500, `Internal server error: ${message}`) }, NO_FAULT);
    });
  });
  server.keepAliveTimeout = 5000;
  return server;
}
