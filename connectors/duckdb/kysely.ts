import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresQueryCompiler,
  sql,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

/**
 * kysely has no DuckDB dialect: this one is Postgres' query compiler and adapter (DuckDB reads
 * Postgres' SQL: `$n` placeholders, double-quoted identifiers, `on conflict`) over one DuckDB
 * connection, with DuckDB's `information_schema` for introspection.
 */

/** Runs one body at a time, in call order; the way kysely's own SQLite driver guards its one connection. */
export class Mutex {
  #tail: Promise<void> = Promise.resolve();

  /** Resolves, once the holders before it are done, with the function that lets the next one in. */
  async lock(): Promise<() => void> {
    let unlock: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (unlock = resolve));
    const before = this.#tail;
    this.#tail = before.then(() => held);
    await before;
    return unlock;
  }

  async run<T>(body: () => Promise<T>): Promise<T> {
    const unlock = await this.lock();
    try {
      return await body();
    } finally {
      unlock();
    }
  }
}

/** kysely's parameters as DuckDB binds them: a Date as ISO text (DuckDB casts it where a timestamp is wanted). */
export function duckDbParameters(parameters: readonly unknown[]): DuckDBValue[] {
  return parameters.map((value) => (value instanceof Date ? value.toISOString() : value === undefined ? null : (value as DuckDBValue)));
}

class DuckDbKyselyConnection implements DatabaseConnection {
  readonly #connection: DuckDBConnection;

  constructor(connection: DuckDBConnection) {
    this.#connection = connection;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const reader = await this.#connection.runAndReadAll(compiledQuery.sql, duckDbParameters(compiledQuery.parameters));
    return { rows: reader.getRowObjectsJS() as R[], numAffectedRows: BigInt(reader.rowsChanged) };
  }

  // eslint-disable-next-line require-yield -- kysely's interface; nothing here streams
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    await Promise.resolve();
    throw new Error('the DuckDB sink does not stream queries');
  }
}

/** One connection, handed to one kysely query or transaction at a time; closing it is the DuckDB driver's. */
class DuckDbKyselyDriver implements Driver {
  readonly #connection: DuckDbKyselyConnection;
  readonly #mutex = new Mutex();
  readonly #unlocks: (() => void)[] = [];

  constructor(connection: DuckDBConnection) {
    this.#connection = new DuckDbKyselyConnection(connection);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    this.#unlocks.push(await this.#mutex.lock());
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin transaction'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  releaseConnection(): Promise<void> {
    this.#unlocks.shift()?.();
    return Promise.resolve();
  }

  async destroy(): Promise<void> {}
}

/** Postgres' adapter without its advisory locks: one process holds a DuckDB file, and the driver serialises schema changes. */
class DuckDbAdapter extends PostgresAdapter {
  override async acquireMigrationLock(): Promise<void> {}

  override async releaseMigrationLock(): Promise<void> {}
}

/** Tables and views of the database's `main` schema (kysely's migration tables only when asked). */
class DuckDbIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select schema_name as name from information_schema.schemata where catalog_name = current_database()`.execute(
      this.#db,
    );
    return rows;
  }

  async getTables(options: { withInternalKyselyTables?: boolean } = {}): Promise<TableMetadata[]> {
    const { rows } = await sql<{
      table_name: string;
      table_schema: string;
      table_type: string;
      column_name: string;
      data_type: string;
      is_nullable: string;
      column_default: string | null;
    }>`
      select t.table_name, t.table_schema, t.table_type, c.column_name, c.data_type, c.is_nullable, c.column_default
      from information_schema.tables t join information_schema.columns c on c.table_catalog = t.table_catalog and c.table_schema = t.table_schema and c.table_name = t.table_name
      where t.table_catalog = current_database() and t.table_schema = 'main' order by t.table_name, c.ordinal_position`.execute(this.#db);
    const tables = new Map<string, TableMetadata>();
    for (const row of rows) {
      if (options.withInternalKyselyTables !== true && row.table_name.startsWith('kysely_migration')) continue;
      let table = tables.get(row.table_name);
      if (table === undefined) {
        table = { name: row.table_name, schema: row.table_schema, isView: row.table_type === 'VIEW', columns: [] };
        tables.set(row.table_name, table);
      }
      table.columns.push({
        name: row.column_name,
        dataType: row.data_type,
        isNullable: row.is_nullable === 'YES',
        isAutoIncrementing: false,
        hasDefaultValue: row.column_default !== null,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: { withInternalKyselyTables: boolean }): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

/** kysely over one DuckDB connection. */
export class DuckDbDialect implements Dialect {
  readonly #connection: DuckDBConnection;

  constructor(connection: DuckDBConnection) {
    this.#connection = connection;
  }

  createDriver(): Driver {
    return new DuckDbKyselyDriver(this.#connection);
  }

  createQueryCompiler(): PostgresQueryCompiler {
    return new PostgresQueryCompiler();
  }

  createAdapter(): DuckDbAdapter {
    return new DuckDbAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new DuckDbIntrospector(db);
  }
}
