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

/**
 * A capacity shared by client addresses, capped in all and per address so one address cannot take
 * it all: connections, deliveries in progress, bytes of bodies held.
 */
export class ClientShares {
  readonly #capacity: number;
  readonly #perClient: number;
  readonly #byClient = new Map<string, number>();
  #used = 0;

  constructor(capacity: number, perClient: number) {
    this.#capacity = capacity;
    this.#perClient = perClient;
  }

  /** Adds `amount` for `source`; false, with nothing added, when either cap would be passed. */
  tryAdd(source: string, amount: number): boolean {
    const mine = this.#byClient.get(source) ?? 0;
    if (this.#used + amount > this.#capacity || mine + amount > this.#perClient) return false;
    this.#byClient.set(source, mine + amount);
    this.#used += amount;
    return true;
  }

  /** Gives back `amount` that `source` added. */
  remove(source: string, amount: number): void {
    const left = (this.#byClient.get(source) ?? 0) - amount;
    if (left <= 0) this.#byClient.delete(source);
    else this.#byClient.set(source, left);
    this.#used -= amount;
  }

  /** What every address holds together, now. */
  get used(): number {
    return this.#used;
  }
}

/** Applies the limits to a server before it listens: every port callsync opens is bounded alike. */
export function boundConnections(server: Server, limits: ConnectionLimits): void {
  server.maxConnections = limits.maxConnections;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  // Node itself enforces the total (server.maxConnections); this counts per address.
  const open = new ClientShares(Number.POSITIVE_INFINITY, limits.maxConnectionsPerClient);
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    if (!open.tryAdd(address, 1)) return void socket.destroy();
    socket.once('close', () => open.remove(address, 1));
  });
}
