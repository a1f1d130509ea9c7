import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createSink } from '../../../connectors/registry.js';
import { freshSqlConfig, querySql } from '../../support/sql-store-fixtures.js';
import { postgresAdapter } from '../../../connectors/postgres/target.js';
import type { RawConversion, SqlAdapter } from '../../../connectors/sql/index.js';
import { sqliteAdapter } from '../../../connectors/sqlite/target.js';
import { declaredValue, parseDuration } from '../../../src/normalize/index.js';
import type { Json, StreamTable, SyncRecord } from '../../../src/sink/sink.js';

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

/** Database values in JS form: Postgres hands back bigint as text, booleans and dates as objects. */
function plain(value: unknown, conversion: RawConversion): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return `${value.toISOString().slice(0, 19)}Z`;
  if (typeof value === 'boolean') return Number(value);
  if (conversion === 'integer' || conversion === 'duration' || conversion === 'number') return Number(value);
  return value;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe.each([
  ['sqlite', () => sqliteAdapter, 'text'],
  ['postgres', (schema: string) => postgresAdapter(schema), 'jsonb'],
] as const)('reading raw in SQL (%s)', (dialect, adapterFor, jsonType) => {
  it('gives what the normalizers give for every value and conversion', async () => {
    const config = await freshSqlConfig(dialect, cleanups);
    const adapter: SqlAdapter = adapterFor(config.type === 'postgres' ? String(config.schema) : '');
    const raws = VALUES.flatMap((value): Json[] => [{ v: value }, { n: { v: value } }]);
    const literal = (raw: Json) => `'${JSON.stringify(raw).replaceAll("'", "''")}'`;
    const selects = CONVERSIONS.flatMap((conversion) =>
      [['v'], ['n', 'v']].map((path) => `${adapter.rawValue(path, conversion)} as "${conversion}_${path.length}"`),
    );
    const rows = await querySql(config, (t) => [
      ...(config.type === 'postgres' ? [`create schema if not exists "${String(config.schema)}"`] : []),
      `create table ${t('probe')} (position integer, raw ${jsonType})`,
      ...raws.map((raw, position) => `insert into ${t('probe')} values (${position}, ${literal(raw)})`),
      `select position, ${selects.join(', ')} from ${t('probe')} order by position`,
    ]);
    expect(rows).toHaveLength(raws.length);
    const mismatches: string[] = [];
    rows.forEach((row, position) => {
      const value = VALUES[Math.floor(position / 2)];
      const nested = position % 2 === 1;
      for (const conversion of CONVERSIONS) {
        // `{ v: 1 }` at `v` of the nested record is an object; at `n.v` of the flat one there is nothing.
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
  });

  it('stores declared number and boolean values as written, and fills them from raw when added later', async () => {
    const config = await freshSqlConfig(dialect, cleanups);
    const sink = await createSink(config, { logger: pino({ level: 'silent' }) });
    try {
      const table: StreamTable = {
        stream: 'forms',
        table: 'forms',
        columns: [
          { name: 'score', type: 'number' },
          { name: 'consent', type: 'boolean' },
        ],
      };
      await sink.prepare([table]);
      const raws = [
        { id: 'a', score: 4.5, consent: true },
        { id: 'b', score: -2, consent: false },
        { id: 'c', score: 'n/a', consent: 'yes' },
      ];
      const records: SyncRecord[] = raws.map((raw) => ({
        businessId: 'acme',
        id: raw.id,
        source: 'v1',
        fields: { score: declaredValue(raw.score, 'number'), consent: declaredValue(raw.consent, 'boolean') },
        raw,
      }));
      await sink.write({ businessId: 'acme', table, records, deadLetters: [] }, {});
      const later: StreamTable = {
        ...table,
        columns: [...table.columns, { name: 'score_again', type: 'number', from: ['score'] }, { name: 'consent_again', type: 'boolean', from: ['consent'] }],
      };
      await sink.prepare([later]);
    } finally {
      await sink.close();
    }
    const rows = await querySql(config, (t) => [`select id, score, consent, score_again, consent_again from ${t('forms')} order by id`]);
    const flag = (value: unknown) => (value === null ? null : Number(value));
    expect(rows.map((row) => [row.id, row.score, flag(row.consent), row.score_again, flag(row.consent_again)])).toEqual([
      ['a', 4.5, 1, 4.5, 1],
      ['b', -2, 0, -2, 0],
      ['c', null, null, null, null],
    ]);
  });
});
