import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createSink } from '../../../connectors/registry.js';
import { freshSqlConfig, querySql } from '../../support/sql-store-fixtures.js';
import { postgresAdapter } from '../../../connectors/postgres/target.js';
import type { RawConversion, SqlAdapter } from '../../../connectors/sql/index.js';
import { sqliteAdapter } from '../../../connectors/sqlite/target.js';
import { declaredValue } from '../../../src/normalize/index.js';
import { RAW_PROBES, rawValueMismatches, rawValueSelects } from '../../support/raw-value-probe.js';
import type { Json, StreamTable, SyncRecord } from '../../../src/sink/sink.js';

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
    const raws = RAW_PROBES;
    const literal = (raw: Json) => `'${JSON.stringify(raw).replaceAll("'", "''")}'`;
    const selects = rawValueSelects((path, conversion) => adapter.rawValue(path, conversion));
    const rows = await querySql(config, (t) => [
      ...(config.type === 'postgres' ? [`create schema if not exists "${String(config.schema)}"`] : []),
      `create table ${t('probe')} (position integer, raw ${jsonType})`,
      ...raws.map((raw, position) => `insert into ${t('probe')} values (${position}, ${literal(raw)})`),
      `select position, ${selects.join(', ')} from ${t('probe')} order by position`,
    ]);
    expect(rows).toHaveLength(raws.length);
    expect(rawValueMismatches(rows, plain)).toEqual([]);
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
