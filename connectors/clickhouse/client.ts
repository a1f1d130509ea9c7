import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import type { ClickHouseSinkConfig } from './config.js';
import { serverError } from './errors.js';

/**
 * How the sink talks to ClickHouse: `@clickhouse/client` over HTTP, keep-alive, its own logging
 * off (a failure reaches the operator once, as the sink explains it). Only what ClickHouse 18.16
 * also understands is sent: no query parameters (`{name:Type}` is 19.x), no settings; every value
 * is a literal quoted by `mapping.ts` or a row of JSONEachRow.
 */
export class ClickHouseConnection {
  readonly #client: ClickHouseClient;

  constructor(config: ClickHouseSinkConfig) {
    const url = new URL(config.url);
    const username = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    url.username = '';
    url.password = '';
    this.#client = createClient({
      url: url.toString(),
      ...(username === '' ? {} : { username, password }),
      request_timeout: config.requestTimeoutMs,
      // ClickHouse closes an idle keep-alive connection after 3 s (18.16's default): a socket idle
      // for 1 s is dropped, and checked again before each request, so a slow timer on a busy
      // machine never hands a request a socket the server has just closed.
      keep_alive: { enabled: true, idle_socket_ttl: 1000, eagerly_destroy_stale_sockets: true },
      log: { level: ClickHouseLogLevel.OFF },
    });
  }

  /** The rows of a SELECT, as JSONEachRow objects (64-bit integers arrive as strings). */
  async select<Row>(query: string): Promise<Row[]> {
    try {
      const result = await this.#client.query({ query, format: 'JSONEachRow' });
      return await result.json<Row>();
    } catch (error) {
      throw serverError(error);
    }
  }

  /** DDL or an `INSERT … SELECT`; resolves once the server has answered, the statement done. */
  async command(query: string): Promise<void> {
    try {
      await this.#client.command({ query });
    } catch (error) {
      throw serverError(error);
    }
  }

  /**
   * Inserts rows as JSONEachRow. Resolves when the server acknowledged the insert: a synchronous
   * insert answers once its data is written to a part on disk, so a later read sees it.
   */
  async insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      await this.#client.insert({ table, values: rows, format: 'JSONEachRow' });
    } catch (error) {
      throw serverError(error);
    }
  }

  close(): Promise<void> {
    return this.#client.close();
  }
}
