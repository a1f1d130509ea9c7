import { createServer } from 'node:http';
import type { Logger } from 'pino';
import { listen, type Listening } from '../server/listen.js';
import type { HookReceiver } from './receiver.js';

export type HookServer = Listening;

/** The receiver on a port of its own (`hooks.port`), so the operators' port can stay private. */
export async function startHookServer(options: {
  readonly host: string;
  readonly port: number;
  readonly receiver: HookReceiver;
  readonly logger: Logger;
}): Promise<HookServer> {
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
  const listening = await listen(server, options.host, options.port);
  logger.info({ url: listening.url }, 'webhook receiver listening');
  return listening;
}
