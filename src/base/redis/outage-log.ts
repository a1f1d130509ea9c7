import type { Logger } from 'pino';

/** While Redis stays away, how often the same failure is logged again (with how many were not). */
const REPEAT_EVERY_MS = 30_000;

const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** A failure to reach Redis (not a command Redis refused): ioredis's socket errors and its closed-connection rejections. */
function isConnectionFailure(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (typeof code === 'string' && CONNECTION_CODES.has(code)) || (typeof message === 'string' && /connection is closed/i.test(message));
}

/** What hears every Redis client's and BullMQ queue's `error` events of one process. */
export interface RedisOutageLog {
  /** One failure of a connection or a queue; `source` says which (`redis`, `queue`, `worker`). */
  error(source: string, error: unknown): void;
  /** A connection is ready again: one line closes the outage, naming how many failures it had. */
  ready(): void;
}

/**
 * The one listener for Redis's `error` events. Without a listener ioredis and BullMQ print each
 * failure as a multi-line stack to the console, between the JSON log lines; with one per client
 * each reconnect attempt (every few hundred ms, on every connection) would be a line. So: the
 * first failure of an outage is a warning, the same failure again at most every 30 s with the
 * count since, and the return of Redis one info line.
 */
export function redisOutageLog(logger: Logger, now: () => number = Date.now): RedisOutageLog {
  let failing = false;
  let failures = 0;
  let unlogged = 0;
  let lastLoggedAt = 0;
  let lastMessage = '';
  return {
    error(source, error) {
      const message = error instanceof Error ? error.message : String(error);
      failures += 1;
      if (failing && message === lastMessage && now() - lastLoggedAt < REPEAT_EVERY_MS) {
        unlogged += 1;
        return;
      }
      const what = isConnectionFailure(error) ? 'redis unavailable; retrying' : `${source} error`;
      logger.warn({ source, err: message, ...(unlogged > 0 ? { repeated: unlogged } : {}) }, what);
      failing = true;
      unlogged = 0;
      lastLoggedAt = now();
      lastMessage = message;
    },
    ready() {
      if (!failing) return;
      logger.info({ failures }, 'redis reachable again');
      failing = false;
      failures = 0;
      unlogged = 0;
      lastMessage = '';
    },
  };
}
