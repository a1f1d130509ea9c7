import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { HookReceiver } from './receiver.js';

export interface HookServer {
  /** Base URL, e.g. `http://127.0.0.1:9465`. */
  readonly url: string;
  /** Stops listening and drops open connections. Safe to call twice. */
  close(): Promise<void>;
}

/** The receiver on a port of its own (`hooks.port`), so the operators' port can stay private. */
export async function startHookServer(options: { readonly host: string; readonly port: number; readonly receiver: HookReceiver; readonly logger: Logger }): Promise<HookServer> {
  const { receiver, logger } = options;
  const server = createServer((req, res) => {
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
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  logger.info({ url }, 'webhook receiver listening');
  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
