import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import type { RowLayout, RowValue } from './mapping.js';

/** Parquet's codecs this sink offers: both read by every engine that reads Parquet. */
type ParquetCompression = 'zstd' | 'snappy';

/**
 * The Parquet encoder: an in-memory DuckDB fed by its appender, whose `COPY … TO` writes each file.
 * DuckDB's binary ships in its npm package, so nothing is downloaded. One connection, one file at
 * a time (a file takes milliseconds; the uploads run beside it).
 */
export class ParquetEncoder {
  readonly #instance: DuckDBInstance;
  readonly #connection: DuckDBConnection;
  readonly #compression: ParquetCompression;
  #queue: Promise<unknown> = Promise.resolve();
  #files = 0;
  /** The table of the file written last, dropped by the next write (or with the instance). */
  #last: string | undefined;

  private constructor(instance: DuckDBInstance, connection: DuckDBConnection, compression: ParquetCompression) {
    this.#instance = instance;
    this.#connection = connection;
    this.#compression = compression;
  }

  static async open(compression: ParquetCompression): Promise<ParquetEncoder> {
    // No file, no extension downloads; UTC so a TIMESTAMPTZ reads back as written.
    // One thread: a file of a flush is small, and a second thread costs more to hand work to than it saves.
    const instance = await DuckDBInstance.create(':memory:', { threads: '1', autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
    const connection = await instance.connect();
    await connection.run(`SET TimeZone = 'UTC'`);
    return new ParquetEncoder(instance, connection, compression);
  }

  /** Writes `rows` (values in `layout` order) as one Parquet file at `path`; resolves once it is closed. */
  write(path: string, layout: RowLayout, rows: readonly (readonly RowValue[])[]): Promise<void> {
    const task = this.#queue.then(() => this.#write(path, layout, rows));
    this.#queue = task.catch(() => undefined);
    return task;
  }

  async #write(path: string, layout: RowLayout, rows: readonly (readonly RowValue[])[]): Promise<void> {
    // A table per file: an emptied in-memory table keeps its deleted rows' memory. The last file's
    // table is dropped in the same call that creates this one, so a file is done once COPY is,
    // one round trip to DuckDB fewer before the file can be stored.
    const table = `rows_${(this.#files += 1)}`;
    const drop = this.#last === undefined ? '' : `DROP TABLE IF EXISTS ${this.#last}; `;
    await this.#connection.run(`${drop}CREATE TABLE ${table} (${layout.ddl})`);
    this.#last = table;
    const appender = await this.#connection.createAppender(table);
    try {
      for (const row of rows) appendRow(appender, layout, row);
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    await this.#connection.run(`COPY ${table} TO '${path.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION ${this.#compression})`);
  }

  /**
   * Writes one Parquet file at `path` holding, of each record in the `sources` files, its newest
   * written row and its newest deletion row (all the mirror query reads); resolves with the rows
   * written. Files written before a `columns:` addition read with NULL there (`union_by_name`).
   */
  compact(sources: readonly string[], path: string): Promise<number> {
    const task = this.#queue.then(() => this.#compact(sources, path));
    this.#queue = task.catch(() => undefined);
    return task;
  }

  async #compact(sources: readonly string[], path: string): Promise<number> {
    const quote = (text: string): string => `'${text.replaceAll("'", "''")}'`;
    // Paths are local copies: no Hive columns from their names, whatever folders they sit in.
    const versions = `read_parquet([${sources.map(quote).join(', ')}], union_by_name = true, hive_partitioning = false)`;
    const newest = (deleted: string): string =>
      `SELECT * FROM (SELECT * FROM ${versions} WHERE deleted_at IS ${deleted} QUALIFY row_number() OVER (PARTITION BY business_id, id ORDER BY version DESC) = 1)`;
    const reader = await this.#connection.runAndReadAll(
      `COPY (${newest('NULL')} UNION ALL BY NAME ${newest('NOT NULL')} ORDER BY business_id, id, version) TO ${quote(path)} (FORMAT parquet, COMPRESSION ${this.#compression})`,
    );
    return Number(reader.getRows()[0]?.[0] ?? 0);
  }

  close(): void {
    this.#connection.closeSync();
    this.#instance.closeSync();
  }
}

function appendRow(appender: DuckDBAppender, layout: RowLayout, row: readonly RowValue[]): void {
  const { columns } = layout;
  for (let index = 0; index < columns.length; index++) {
    const value = row[index] ?? null;
    if (value === null) appender.appendNull();
    else if (typeof value === 'bigint') appender.appendBigInt(value);
    else if (typeof value === 'boolean') appender.appendBoolean(value);
    else if (typeof value === 'number') {
      if ((columns[index] as { type: string }).type === 'integer') appender.appendBigInt(BigInt(value));
      else appender.appendDouble(value);
    }
    // Text and ISO timestamps: DuckDB casts the text to the column's type.
    else appender.appendVarchar(value);
  }
  appender.endRow();
}
