import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening HTTP server: its base URL and a close that also drops kept-alive connections. */
export interface Listening {
  /** Base URL, e.g. `http://127.0.0.1:9464` (IPv6 hosts in brackets). */
  readonly url: string;
  /** Stops listening and drops open connections. Safe to call twice. */
  close(): Promise<void>;
}

/** Listens on `host:port` (0 picks a free port); rejects with the listen error (port taken, bad host). */
export async function listen(server: Server, host: string, port: number): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
