import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDuckDbInstance } from '../../../connectors/duckdb/client.js';
import { duckdbAdapter } from '../../../connectors/duckdb/target.js';
import type { RawConversion } from '../../../connectors/sql/index.js';
import { declaredValue, parseDuration } from '../../../src/normalize/index.js';
import type { Json } from '../../../src/sink/sink.js';

// DuckDB's reading of `raw` in SQL (a column declared or added later, migration 004) against the
// normalizers, on the awkward values raw-value.test.ts gives SQLite and Postgres.

/** Values a declared column or a call field may meet; each is read at `v` and at `n.v`. */
const VALUES: Json[] = [
  'completed',
  '',
  '  spaced  ',
  "it's",
  0,
  -3,
  42,
  1.5,
  9007199254740991,
  2 ** 53 + 2,
  true,
  false,
  null,
  {},
  [1],
  { v: 1 },
  '12',
  '0012',
  '1234567890123456',
  '9007199254740992',
  '-5',
  '1:02:03',
  '61:05',
  '100:00:00',
  '1:60',
  ' 125 ',
  '1:2:3',
  '2025-05-31T23:59:59Z',
  '2025-03-01T10:00:00+02:00',
  '2025-03-01T10:00:00-0530',
  '2025-03-01 10:00:00.999z',
  '2025-03-01T10:00:00',
  '2025-02-29T00:00:00Z',
  '2024-02-29T12:00:00Z',
  '2025-13-01T00:00:00Z',
  '2025-04-31T00:00:00Z',
  '2025-03-01T24:00:00Z',
  'now',
  '2025-03-01T10:00:00Zjunk',
];

const CONVERSIONS: RawConversion[] = ['text', 'integer', 'number', 'boolean', 'timestamp', 'duration'];

function expected(value: Json | undefined, conversion: RawConversion): unknown {
  if (conversion !== 'duration') return declaredValue(value, conversion);
  const result = parseDuration(value);
  return result.ok ? result.value : null;
}

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
    const connection = await instance.connect();
    try {
      await connection.run(`set TimeZone = 'UTC'`);
      const raws = VALUES.flatMap((value): Json[] => [{ v: value }, { n: { v: value } }]);
      await connection.run('create table probe (position integer, raw varchar)');
      for (const [position, raw] of raws.entries()) await connection.run('insert into probe values ($1, $2)', [position, JSON.stringify(raw)]);
      const selects = CONVERSIONS.flatMap((conversion) =>
        [['v'], ['n', 'v']].map((path) => `${duckdbAdapter.rawValue(path, conversion)} as "${conversion}_${path.length}"`),
      );
      const rows = (await connection.runAndReadAll(`select position, ${selects.join(', ')} from probe order by position`)).getRowObjectsJS();
      expect(rows).toHaveLength(raws.length);
      const mismatches: string[] = [];
      rows.forEach((row, position) => {
        const value = VALUES[Math.floor(position / 2)];
        const nested = position % 2 === 1;
        for (const conversion of CONVERSIONS) {
          const got = plain(row[`${conversion}_${nested ? 2 : 1}`], conversion);
          const want = expected(value, conversion);
          if (got !== want)
            mismatches.push(
              `${conversion} of ${JSON.stringify(value)}${nested ? ' (nested)' : ''}: SQL ${JSON.stringify(got)}, normalizer ${JSON.stringify(want)}`,
            );
          const other = plain(row[`${conversion}_${nested ? 1 : 2}`], conversion);
          if (other !== null) mismatches.push(`${conversion} of ${JSON.stringify(value)}: a path that is not there gave ${JSON.stringify(other)}`);
        }
      });
      expect(mismatches).toEqual([]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});
