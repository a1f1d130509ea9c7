import { z } from 'zod';
import { flushConfigSchema } from '../../src/sink/flush-config.js';
import { IDENTIFIER_PATTERN } from '../sql/index.js';

/** `http(s)://[user[:password]@]host[:port]`, with no path: the database is its own key. */
function isServerUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && (url.pathname === '/' || url.pathname === '') && url.search === '';
  } catch {
    return false;
  }
}

/** The `sink:` section for ClickHouse. Unknown keys are an error that names them. */
export const clickhouseConfigSchema = z.strictObject({
  type: z.literal('clickhouse'),
  /**
   * The HTTP interface, e.g. `http://default:${CLICKHOUSE_PASSWORD}@clickhouse:8123`; the user and
   * password, when given, are in it, so it is never logged.
   */
  url: z.string().refine(isServerUrl, {
    error: 'expected http(s)://[user[:password]@]host:port with no path or query (the database is sink.database)',
  }),
  /** Database holding every table; created when missing. @defaultValue 'callsync' */
  database: z.string().regex(IDENTIFIER_PATTERN, 'a lower-case identifier, at most 63 characters').default('callsync'),
  /** Milliseconds one request may take before it fails (and the write is tried again by the engine). @defaultValue 60000 */
  requestTimeoutMs: z.number().int().min(1000).max(600_000).default(60_000),
  /** How many pages one write (one insert of rows, one of the checkpoint) gathers. @defaultValue {@link DEFAULT_FLUSH} */
  flush: flushConfigSchema,
});

/**
 * @defaultValue for {@link ClickHouseSinkConfig.flush}: 5,000 records or a second. Every insert makes
 * a part that ClickHouse merges later, and its docs ask for inserts of at least a thousand rows, so a
 * backfill's pages of a few hundred are gathered; a second keeps a slow stream's rows from waiting.
 */
export const DEFAULT_FLUSH = Object.freeze({ maxRows: 5000, maxMs: 1000 });

export type ClickHouseSinkConfig = z.output<typeof clickhouseConfigSchema>;
