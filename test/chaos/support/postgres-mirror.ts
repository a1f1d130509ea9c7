import pg from 'pg';
import type { Simulator, TruthRecord } from '../../../simulator/index.js';
import { diffMirror, type MirrorComparison, type MirrorDiff, type MirrorStream } from '../../integration/support/sqlite-mirror.js';
import type { CountedDiff } from './figures.js';

/** JSON with object keys sorted at every depth: JSONB does not keep the served key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A Postgres column value in the terms of the truth: timestamptz → epoch ms, bigint text → number. */
function same(stored: unknown, expected: string | number | null): boolean {
  if (stored === null || expected === null) return stored === expected;
  if (stored instanceof Date) return typeof expected === 'string' && stored.getTime() === Date.parse(expected);
  if (typeof expected === 'number') return Number(stored) === expected;
  return stored === expected;
}

const POSTGRES: MirrorComparison = { field: same, raw: (stored, served) => canonical(stored) === canonical(served) };

function diffRows(rows: ReadonlyArray<Record<string, unknown>>, truth: readonly TruthRecord[]): MirrorDiff {
  return diffMirror(
    rows.map((row) => ({ id: String(row.id), fields: row, raw: row.raw })),
    truth,
    POSTGRES,
  );
}

/** Diffs every business × stream of a Postgres sink schema against the simulator, with row counts. */
export async function diffPostgres(
  url: string,
  schema: string,
  simulator: Simulator,
  streams: readonly MirrorStream[] = ['calls', 'voicemails', 'numbers'],
): Promise<Record<string, CountedDiff>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result: Record<string, CountedDiff> = {};
    for (const business of simulator.businesses) {
      const truth = simulator.truth(business.name);
      for (const stream of streams) {
        const rows = (await client.query(`select * from "${schema}"."${stream}" where business_id = $1`, [business.name])).rows as Array<
          Record<string, unknown>
        >;
        result[`${business.name}/${stream}`] = {
          diff: diffRows(rows, truth[stream]),
          expected: truth[stream].length,
          stored: rows.length,
          distinct: new Set(rows.map((row) => String(row.id))).size,
        };
      }
    }
    return result;
  } finally {
    await client.end();
  }
}

/** Rows in one table of the schema; 0 while it does not exist or Postgres is down. */
export async function countPostgresRows(url: string, schema: string, table: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const result = await client.query<{ n: string }>(`select count(*) as n from "${schema}"."${table}"`);
    return Number(result.rows[0]?.n ?? 0);
  } catch {
    return 0;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Every table of the schema as JSON text, for the secret scan. */
export async function dumpPostgresSchema(url: string, schema: string): Promise<Array<{ table: string; text: string }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = (await client.query('select table_name from information_schema.tables where table_schema = $1', [schema])).rows as Array<{
      table_name: string;
    }>;
    const dumps: Array<{ table: string; text: string }> = [];
    for (const { table_name: table } of tables) dumps.push({ table, text: JSON.stringify((await client.query(`select * from "${schema}"."${table}"`)).rows) });
    return dumps;
  } finally {
    await client.end();
  }
}
