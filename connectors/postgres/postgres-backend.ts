import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { SinkDatabase } from '../sql/sink-database.js';
import type { SqlExecutor } from '../sql/sql-executor.js';
import type { SqlFlavor } from '../sql/sql-flavor.js';
import type { SqlBackend } from '../sql/sql-sink.js';
import type { PostgresHandles } from './postgres-dialect.js';

/**
 * Writes run on a pooled pg client directly, not through kysely: kysely cannot name a statement,
 * and a named statement is parsed and planned once per connection instead of once per batch.
 * Statements are parameterised, never interpolated.
 */
export class PostgresBackend implements SqlBackend {
  readonly db: Kysely<SinkDatabase>;
  readonly flavor: SqlFlavor;
  readonly #pool: PostgresHandles['pool'];

  constructor(handles: PostgresHandles, flavor: SqlFlavor) {
    this.db = handles.db;
    this.#pool = handles.pool;
    this.flavor = flavor;
  }

  async transaction<T>(body: (executor: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('begin');
      try {
        const result = await body({
          run: async (text, parameters, name) => {
            const values = [...parameters];
            const outcome = await client.query(name === undefined ? { text, values } : { name, text, values });
            return outcome.rowCount ?? 0;
          },
        });
        await client.query('commit');
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
    const key = `callsync schema ${this.flavor.schema ?? ''}`;
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
