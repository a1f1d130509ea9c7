import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectDuckDb, openDuckDbInstance } from '../../../connectors/duckdb/client.js';
import { duckdbAdapter } from '../../../connectors/duckdb/target.js';
import type { RawConversion } from '../../../connectors/sql/index.js';
import { RAW_PROBES, rawValueMismatches, rawValueSelects } from '../../support/raw-value-probe.js';

// DuckDB's reading of `raw` in SQL (a column declared or added later, migration 004) against the
// normalizers, on the awkward values raw-value.test.ts gives SQLite and Postgres.

/** DuckDB values in JS form: BIGINT comes back a bigint, TIMESTAMPTZ a Date. */
function plain(value: unknown, conversion: RawConversion): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return `${value.toISOString().slice(0, 19)}Z`;
  if (typeof value === 'boolean') return Number(value);
  if (conversion === 'integer' || conversion === 'duration' || conversion === 'number') return Number(value);
  return value;
}

let directory: string | undefined;
afterAll(async () => {
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

describe('reading raw in SQL (duckdb)', () => {
  it('gives what the normalizers give for every value and conversion', async () => {
    directory = await mkdtemp(join(tmpdir(), 'callsync-duckdb-raw-'));
    const instance = await openDuckDbInstance(join(directory, 'probe.duckdb'));
    const connection = await connectDuckDb(instance);
    try {
      await connection.run(`set TimeZone = 'UTC'`);
      const raws = RAW_PROBES;
      await connection.run('create table probe (position integer, raw varchar)');
      for (const [position, raw] of raws.entries()) await connection.run('insert into probe values ($1, $2)', [position, JSON.stringify(raw)]);
      const selects = rawValueSelects((path, conversion) => duckdbAdapter.rawValue(path, conversion));
      const rows = (await connection.runAndReadAll(`select position, ${selects.join(', ')} from probe order by position`)).getRowObjectsJS();
      expect(rows).toHaveLength(raws.length);
      expect(rawValueMismatches(rows, plain)).toEqual([]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});
