import { createServer } from 'node:http';
import type { Logger } from 'pino';
import { boundConnections, CONNECTIONS_CHECKING_INTERVAL_MS, type ConnectionLimits } from '../server/connection-limits.js';
import { listen, type Listening } from '../server/listen.js';
import type { HookReceiver, HookSettings } from './receiver.js';

export type HookServer = Listening;

/** After the receiver's own deadline and drain, Node's request timeout cuts whatever is left. */
const BACKSTOP_MS = 5_000;

/**
 * The receiver's connection limits, wherever it listens: headers within the body deadline, and
 * whatever is left of a request cut after the receiver's own deadline and drain.
 */
export function receiverConnectionLimits(settings: HookSettings): ConnectionLimits {
  return {
    maxConnections: settings.maxConnections,
    maxConnectionsPerClient: settings.maxConnectionsPerClient,
    headersTimeoutMs: settings.bodyTimeoutMs,
    requestTimeoutMs: settings.bodyTimeoutMs + BACKSTOP_MS,
  };
}

/** The receiver on a port of its own (`hooks.port`), so the operators' port can stay private. */
export async function startHookServer(options: {
  readonly host: string;
  readonly port: number;
  readonly receiver: HookReceiver;
  readonly logger: Logger;
}): Promise<HookServer> {
  const { receiver, logger } = options;
  const server = createServer({ connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS }, (req, res) => {
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
  boundConnections(server, receiverConnectionLimits(receiver.settings));
  const listening = await listen(server, options.host, options.port);
  logger.info({ url: listening.url }, 'webhook receiver listening');
  return listening;
}
