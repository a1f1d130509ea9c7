import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { listen, type Listening } from '../server/listen.js';
import type { HookReceiver, HookSettings } from './receiver.js';

export type HookServer = Listening;

/** After the receiver's own deadline and drain, Node's request timeout cuts whatever is left. */
const BACKSTOP_MS = 5_000;

/**
 * Caps connections: `maxConnections` in all (Node closes the ones past it) and
 * `maxConnectionsPerClient` per address (closed on arrival), so one address cannot take every
 * socket; headers must arrive within the body deadline, and Node checks its timeouts every second.
 */
function bound(server: Server, settings: HookSettings): void {
  server.maxConnections = settings.maxConnections;
  server.headersTimeout = settings.bodyTimeoutMs;
  server.requestTimeout = settings.bodyTimeoutMs + BACKSTOP_MS;
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= settings.maxConnectionsPerClient) return void socket.destroy();
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

/** The receiver on a port of its own (`hooks.port`), so the operators' port can stay private. */
export async function startHookServer(options: {
  readonly host: string;
  readonly port: number;
  readonly receiver: HookReceiver;
  readonly logger: Logger;
}): Promise<HookServer> {
  const { receiver, logger } = options;
  const server = createServer({ connectionsCheckingInterval: 1_000 }, (req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    if (!receiver.owns(path)) {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      return void res.end(`${JSON.stringify({ error: 'not found' })}\n`);
    }
    receiver.handle(req, res, path).catch((error: unknown) => {
      logger.error({ err: error instanceof Error ? error.message : String(error) }, 'webhook receiver could not answer');
      res.destroy();
    });
  });
  bound(server, receiver.settings);
  const listening = await listen(server, options.host, options.port);
  logger.info({ url: listening.url }, 'webhook receiver listening');
  return listening;
}
