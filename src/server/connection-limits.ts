import type { Server } from 'node:http';

/** What one listening server allows before it reads a request. */
export interface ConnectionLimits {
  /** Open connections in all; Node closes those past it on arrival. */
  readonly maxConnections: number;
  /** Open connections from one address; closed on arrival past it, so one address cannot take every socket. */
  readonly maxConnectionsPerClient: number;
  /** A request's headers must be in within this many milliseconds. */
  readonly headersTimeoutMs: number;
  /** A whole request (headers and body) must be in within this many milliseconds. */
  readonly requestTimeoutMs: number;
}

/**
 * The operators' port without the receiver: a browser, a scraper and probes, never hundreds of
 * clients, and no request has a body worth waiting for.
 */
export const STATUS_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 256,
  maxConnectionsPerClient: 64,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 15_000,
};

/**
 * Node checks `headersTimeout` and `requestTimeout` this often (its default is 30 s, which would
 * let a stalled sender hold a socket that much past its deadline).
 */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

/** Applies the limits to a server before it listens: every port callsync opens is bounded alike. */
export function boundConnections(server: Server, limits: ConnectionLimits): void {
  server.maxConnections = limits.maxConnections;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= limits.maxConnectionsPerClient) return void socket.destroy();
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
