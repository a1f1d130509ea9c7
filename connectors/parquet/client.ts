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
  #tables = 0;
  /** The table of the file written last, to drop. */
  #spent: string | undefined;
  /** An empty table made for the next file while the last one was stored, and its columns. */
  #ready: { readonly name: string; readonly ddl: string } | undefined;

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

  /**
   * Writes `rows` (values in `layout` order) as one Parquet file at `path`; resolves once it is
   * closed, with what `meanwhile` returned. `meanwhile` is called once DuckDB holds the rows and
   * encodes them on its own thread: the caller's work beside the file (hashing) runs then instead
   * of before or after it.
   */
  write<T>(path: string, layout: RowLayout, rows: readonly (readonly RowValue[])[], meanwhile: () => T): Promise<T> {
    const task = this.#queue.then(() => this.#write(path, layout, rows, meanwhile));
    // The next file's table is made (and this one's dropped) while the caller stores this file and
    // commits its checkpoint, rather than when the next file is asked for; a failure there leaves
    // the next write to make its own.
    this.#queue = task.then(
      () => this.#prepareNext(layout.ddl).catch(() => undefined),
      () => undefined,
    );
    return task;
  }

  async #write<T>(path: string, layout: RowLayout, rows: readonly (readonly RowValue[])[], meanwhile: () => T): Promise<T> {
    // A table per file: an emptied in-memory table keeps its deleted rows' memory.
    const table = await this.#tableFor(layout.ddl);
    this.#spent = table;
    const appender = await this.#connection.createAppender(table);
    try {
      for (const row of rows) appendRow(appender, layout, row);
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    const copying = this.#connection.run(`COPY ${table} TO '${path.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION ${this.#compression})`);
    try {
      const value = meanwhile();
      await copying;
      return value;
    } catch (error) {
      // The file is DuckDB's until COPY ends, whatever the caller's work did.
      await copying.catch(() => undefined);
      throw error;
    }
  }

  /** The empty table made for this layout after the last file, or a new one (the first file, another stream's columns). */
  async #tableFor(ddl: string): Promise<string> {
    const ready = this.#ready;
    this.#ready = undefined;
    if (ready?.ddl === ddl) return ready.name;
    const name = `rows_${(this.#tables += 1)}`;
    await this.#connection.run(`${this.#drops(ready?.name)}CREATE TABLE ${name} (${ddl})`);
    return name;
  }

  async #prepareNext(ddl: string): Promise<void> {
    const name = `rows_${(this.#tables += 1)}`;
    await this.#connection.run(`${this.#drops()}CREATE TABLE ${name} (${ddl})`);
    this.#ready = { name, ddl };
  }

  /** `DROP` statements for the spent table and `also`; the spent one is forgotten (a failed drop only keeps its memory until close). */
  #drops(also?: string): string {
    const names = [this.#spent, also].filter((name) => name !== undefined);
    this.#spent = undefined;
    return names.map((name) => `DROP TABLE IF EXISTS ${name}; `).join('');
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

  /** Resolves once nothing is in hand: the last file written, the next one's table made. */
  async idle(): Promise<void> {
    await this.#queue;
  }

  /** Closes DuckDB once nothing is in hand. */
  async close(): Promise<void> {
    await this.#queue;
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
