import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { InsertTarget, StagingTable } from '../sql/index.js';

/**
 * A batch's rows into a temporary table, or straight into the stream table while its rows are
 * new, by `COPY … FROM STDIN` in text format: the rows travel as one stream of tab-separated
 * lines, parsed by the server with each column type's own input function, as bind parameters
 * are, so what is stored is the same as through `unnest`.
 */

/** Text handed to the copy stream at once: large enough that a batch is a few writes, small enough to hold nothing big. */
const CHUNK_CHARS = 256 * 1024;

/** The characters COPY's text format gives a meaning to. */
const SPECIAL = /[\\\n\r\t]/;

/**
 * `text` with each character COPY's text format gives a meaning to written as its backslash
 * escape. One scan for text that has none (most); else a native `replaceAll` a character, several
 * times faster than a replace with a callback on `raw`'s many `\"`.
 */
function escapeText(text: string): string {
  if (!SPECIAL.test(text)) return text;
  let escaped = text.includes('\\') ? text.replaceAll('\\', '\\\\') : text;
  if (escaped.includes('\n')) escaped = escaped.replaceAll('\n', '\\n');
  if (escaped.includes('\r')) escaped = escaped.replaceAll('\r', '\\r');
  if (escaped.includes('\t')) escaped = escaped.replaceAll('\t', '\\t');
  return escaped;
}

/**
 * One value as COPY's text format writes it: null as `\N`, text with its backslashes, tabs and
 * line ends escaped, numbers as `pg` binds them (`String`). U+0000 is left as it is: the server
 * refuses it in text as it does in a bind parameter (SQLSTATE 22021), so the batch is redone row
 * by row and that record becomes a dead letter with the same reason.
 */
export function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return escapeText(value);
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  throw new TypeError(`a ${typeof value} value has no COPY text form`);
}

/** The rows as COPY text, a line each, in chunks of about {@link CHUNK_CHARS}. */
export function* copyText(rows: readonly (readonly unknown[])[]): Generator<string> {
  let chunk = '';
  for (const row of rows) {
    let line = '';
    for (let column = 0; column < row.length; column++) line += (column === 0 ? '' : '\t') + copyField(row[column]);
    chunk += `${line}\n`;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

/**
 * Streams `rows` as COPY text into `table` (SQL text, qualified or `pg_temp.`) naming `columns`, on
 * this connection inside its open transaction; resolves with the rows the server loaded.
 */
async function copyRows(client: pg.PoolClient, table: string, columns: readonly string[], rows: readonly (readonly unknown[])[]): Promise<number> {
  const copy = client.query(copyFrom(`copy ${table} (${columns.join(', ')}) from stdin`));
  await pipeline(Readable.from(copyText(rows)), copy);
  return copy.rowCount;
}

/**
 * Loads `rows` into `staging` on this connection, inside its open transaction. The table is
 * created on first use (`on commit delete rows`: empty again after every commit, kept for the
 * connection's next batch); `created` holds the tables this connection has, once committed.
 * Resolves with whether it created the table, to be added to `created` once the transaction
 * commits (a table created in a transaction that rolls back is gone). The merge names the table
 * unqualified, as the shared staged upsert does: the session's temporary schema is searched first
 * unless a search path lists `pg_temp` later, and the name (`callsync_stage_<hash>`) is ours.
 */
export async function stageRows(
  client: pg.PoolClient,
  staging: StagingTable,
  rows: readonly (readonly unknown[])[],
  created: ReadonlySet<string>,
): Promise<boolean> {
  const createdNow = !created.has(staging.name);
  if (createdNow) {
    const columns = staging.columns.map((column) => `${column.name} ${column.type}`).join(', ');
    await client.query(`create temporary table if not exists ${staging.name} (${columns}) on commit delete rows`);
  }
  await copyRows(
    client,
    `pg_temp.${staging.name}`,
    staging.columns.map((column) => column.name),
    rows,
  );
  return createdNow;
}

/**
 * Copies `rows` straight into the stream table, inside the open transaction: one pass of the rows
 * where staging and merging them is two, and a plain insert where the merge's `on conflict` checks
 * each key before inserting it. A key already stored fails the COPY with SQLSTATE 23505 (the
 * store then redoes the batch by the merge), a refused value as it fails the staging COPY.
 */
export function insertRows(client: pg.PoolClient, target: InsertTarget, rows: readonly (readonly unknown[])[]): Promise<number> {
  return copyRows(client, target.table, target.columns, rows);
}
