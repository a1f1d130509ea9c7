import pg from 'pg';
import { RAW_COLUMNS, rawRow, rawWalk, type RawSource } from './raw-walk.js';

/** Array types of {@link RAW_COLUMNS}, in order. */
const TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'timestamptz', 'jsonb', 'timestamptz', 'bigint', 'text', 'timestamptz', 'text'];

/**
 * The hand-written floor for Postgres: the connector's columns and types in a schema of its own, one
 * COPY-like `insert … select * from unnest(…)` per page (fifteen array parameters, one round trip).
 */
export async function rawPostgresBaseline(url: string, schema: string, source: RawSource): Promise<{ records: number; seconds: number }> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`create schema if not exists "${schema}"`);
    await client.query(`create table "${schema}".calls (
      business_id text not null, id text not null, source text not null,
      to_number text, from_number text, direction text, recording_url text, transcription_text text, created_at timestamptz,
      raw jsonb not null, synced_at timestamptz not null, deleted_at timestamptz,
      duration_seconds bigint, status text, updated_at timestamptz, tracking_number_id text, primary key (business_id, id))`);
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
