import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { NamedStatement, SinkDatabase, SqlDriver, SqlExecutor } from '../sql/index.js';
import { DEFAULT_POOL_SIZE, type PostgresSinkConfig } from './config.js';
import { insertRows, stageRows } from './copy.js';

/** One pg pool: kysely (bound to the configured schema) for queries and DDL, the pool itself for the write path. */
export function openPostgresDriver(config: PostgresSinkConfig, logger: Logger): PostgresDriver {
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolSize ?? DEFAULT_POOL_SIZE,
    // A page and its checkpoint commit together, so a commit lost in a server crash only means that
    // page is fetched again: waiting for the WAL flush on every page buys nothing and costs throughput.
    options: '-c synchronous_commit=off',
  });
  // An idle client losing its server emits 'error' on the pool; unhandled, that would end the process.
  pool.on('error', (error) => logger.warn({ err: error }, 'postgres idle connection failed; the pool replaces it'));
  // A client in use emits 'error' too when its connection fails, and the pool listens only while it
  // is idle: unheard, the process would end. The query in flight gets the same error, and a later
  // query on that client fails, so the write that used it fails and the client is not reused.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new PostgresDriver(pool, config.schema);
}

/**
 * Writes run on a pooled pg client directly, not through kysely: kysely cannot name a statement,
 * and a named statement is parsed and planned once per connection instead of once per batch.
 * Statements are parameterised, never interpolated; a batch's rows go by COPY into a staging
 * table of the connection (`copy.ts`), merged from there, or, while a stream's rows are all new,
 * by COPY straight into its table. pg connects on first query.
 */
class PostgresDriver implements SqlDriver {
  readonly db: Kysely<SinkDatabase>;
  readonly #pool: pg.Pool;
  readonly #schema: string;
  /** The staging tables each connection has (temporary tables live as long as their connection). */
  readonly #staged = new WeakMap<pg.PoolClient, Set<string>>();

  constructor(pool: pg.Pool, schema: string) {
    this.#pool = pool;
    this.#schema = schema;
    this.db = new Kysely<SinkDatabase>({ dialect: new PostgresDialect({ pool }) }).withSchema(schema);
  }

  async select(statement: NamedStatement, parameters: readonly unknown[]): Promise<Record<string, unknown>[]> {
    return (await this.#pool.query<Record<string, unknown>>({ name: statement.name, text: statement.text, values: [...parameters] })).rows;
  }

  async transaction<T>(body: (executor: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('begin');
      try {
        const staged = this.#staged.get(client) ?? new Set<string>();
        const createdNow: string[] = [];
        const result = await body({
          run: async (text, parameters, name) => {
            const values = [...parameters];
            const outcome = await client.query(name === undefined ? { text, values } : { name, text, values });
            return outcome.rowCount ?? 0;
          },
          stage: async (table, rows) => {
            if (await stageRows(client, table, rows, staged)) createdNow.push(table.name);
          },
          insert: (target, rows) => insertRows(client, target, rows),
        });
        await client.query('commit');
        // A staging table created in this transaction lives on with the connection once committed.
        for (const name of createdNow) staged.add(name);
        this.#staged.set(client, staged);
        return result;
      } catch (error) {
        await client.query('rollback').catch((rollbackError: unknown) => {
          // A client that cannot roll back is not handed out again.
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw error;
      }
    } finally {
      client.release(broken);
    }
  }

  /**
   * Holds a session advisory lock keyed by the schema around `body`. kysely's own lock covers
   * only the migrations, not `create schema` before them nor the stream tables after, and
   * concurrent `create table if not exists` can fail on Postgres' catalog unique indexes.
   */
  withSchemaLock<T>(body: (db: Kysely<SinkDatabase>) => Promise<T>): Promise<T> {
    const key = `callsync schema ${this.#schema}`;
    return this.db.connection().execute(async (db) => {
      await sql`select pg_advisory_lock(hashtext(${key}))`.execute(db);
      try {
        return await body(db);
      } finally {
        await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(db);
      }
    });
  }

  destroy(): Promise<void> {
    return this.db.destroy();
  }
}
