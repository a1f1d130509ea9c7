import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { RAW_COLUMNS, rawRow, rawWalk, type RawSource } from './raw-walk.js';

/** Array types of {@link RAW_COLUMNS}, in order. */
const TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'timestamptz', 'jsonb', 'timestamptz', 'bigint', 'text', 'timestamptz', 'text'];

/** As the sink's connections run: a commit does not wait for the WAL flush. */
const SESSION = '-c synchronous_commit=off';

/** The connector's calls table (its columns, types and key) in `schema`. */
async function createCalls(client: pg.Client, schema: string): Promise<void> {
  await client.query(`create schema if not exists "${schema}"`);
  await client.query(`create table "${schema}".calls (
    business_id text not null, id text not null, source text not null,
    to_number text, from_number text, direction text, recording_url text, transcription_text text, created_at timestamptz,
    raw jsonb not null, synced_at timestamptz not null, deleted_at timestamptz,
    duration_seconds bigint, status text, updated_at timestamptz, tracking_number_id text, primary key (business_id, id))`);
}

/**
 * Today's one-page `INSERT` path written by hand: the connector's columns and types in a schema of
 * its own, one COPY-like `insert … select * from unnest(…)` per page (fifteen array parameters, one
 * round trip, one transaction). Before flushes the pipeline reached 0.99–1.06 of it.
 */
export async function rawPostgresBaseline(url: string, schema: string, source: RawSource): Promise<{ records: number; seconds: number }> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: url, options: SESSION });
  await client.connect();
  try {
    await createCalls(client, schema);
    const unnest = TYPES.map((type, index) => `$${index + 1}::${type}[]`).join(', ');
    const sql = `insert into "${schema}".calls (${RAW_COLUMNS.join(', ')}) select * from unnest(${unnest})`;
    const records = await rawWalk(source, async (calls) => {
      const now = new Date().toISOString();
      const columns: (string | number | null)[][] = TYPES.map(() => []);
      for (const call of calls) rawRow(source.businessId, call, now).forEach((value, index) => columns[index]!.push(value));
      await client.query(sql, columns);
    });
    // Timed with the disconnect, as the pipeline's run is with its sink's close.
    await client.end();
    return { records, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    await client.end();
    throw error;
  }
}

/** A value in COPY's text format: `\N` for null, backslash, tab, newline and carriage return escaped. */
function copyValue(value: string | number | null): string {
  if (value === null) return '\\N';
  return typeof value === 'number'
    ? String(value)
    : value.replace(/[\\\n\r\t]/g, (char) => ({ '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[char] as string);
}

/**
 * The hand-written floor for Postgres by its bulk path, at the pipeline's flush size: pages are
 * gathered until `flushRows` rows, then in one transaction `COPY … FROM STDIN` (text format) into
 * the connector's calls table (its columns, key and `deleted_at` index). `merge`: into a temporary
 * staging table and one `insert … select … on conflict … do update … where … is distinct from …`
 * merge from it, as the sink merges; `insert`: straight into the table, as the sink writes a first
 * backfill's flushes (the ceiling of a backfill into an empty table).
 */
export async function rawPostgresCopyBaseline(
  url: string,
  schema: string,
  source: RawSource,
  flushRows: number,
  into: 'merge' | 'insert' = 'merge',
): Promise<{ records: number; seconds: number }> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: url, options: SESSION });
  await client.connect();
  try {
    await createCalls(client, schema);
    // The sink's table has it too (every read of a business's stored rows goes by it), and each row written updates it.
    await client.query(`create index calls_deleted_at_idx on "${schema}".calls (business_id, deleted_at)`);
    const columns = RAW_COLUMNS.join(', ');
    await client.query(`create temporary table stage_rows (like "${schema}".calls) on commit delete rows`);
    const compared = RAW_COLUMNS.filter((column) => !['business_id', 'id', 'synced_at'].includes(column));
    const updated = RAW_COLUMNS.filter((column) => !['business_id', 'id'].includes(column));
    const merge =
      `insert into "${schema}".calls as t (${columns}) select ${columns} from stage_rows ` +
      `on conflict (business_id, id) do update set ${updated.map((column) => `${column} = excluded.${column}`).join(', ')} ` +
      `where (${compared.map((column) => `t.${column}`).join(', ')}) is distinct from (${compared.map((column) => `excluded.${column}`).join(', ')})`;
    let lines: string[] = [];
    const flush = async (): Promise<void> => {
      if (lines.length === 0) return;
      const text = lines.join('');
      lines = [];
      await client.query('begin');
      if (into === 'insert') {
        await pipeline(Readable.from([text]), client.query(copyFrom(`copy "${schema}".calls (${columns}) from stdin`)));
      } else {
        await pipeline(Readable.from([text]), client.query(copyFrom(`copy stage_rows (${columns}) from stdin`)));
        await client.query(merge);
      }
      await client.query('commit');
    };
    const records = await rawWalk(source, async (calls) => {
      const now = new Date().toISOString();
      for (const call of calls) lines.push(`${rawRow(source.businessId, call, now).map(copyValue).join('\t')}\n`);
      if (lines.length >= flushRows) await flush();
    });
    await flush();
    // Timed with the disconnect, as the pipeline's run is with its sink's close.
    await client.end();
    return { records, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    await client.end();
    throw error;
  }
}

/** Drops a schema this bench created (its name is always a generated `t_bench_…`). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}
