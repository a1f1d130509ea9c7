import mysql from 'mysql2/promise';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mysqlSinkFactory } from '../../../connectors/mysql/index.js';
import { mysqlAdapter } from '../../../connectors/mysql/target.js';
import type { RawConversion } from '../../../connectors/sql/index.js';
import { declaredValue } from '../../../src/normalize/index.js';
import { RAW_CONVERSIONS, RAW_PROBES, rawValueMismatches, rawValueSelects } from '../../support/raw-value-probe.js';
import type { StreamTable, SyncRecord } from '../../../src/sink/sink.js';
import { freshMysqlDatabase, type FreshMysqlDatabase } from '../../support/mysql-database.js';

// raw-value.test.ts for MySQL/MariaDB, whose `raw` is LONGTEXT read with the JSON functions: the
// same values and conversions, the SQL against the normalizers.

/** MySQL hands back bigint and double as numbers, a boolean comparison as 0/1, text as text. */
function plain(value: unknown, conversion: RawConversion): unknown {
  if (value === null || value === undefined) return null;
  if (conversion === 'integer' || conversion === 'duration' || conversion === 'number' || conversion === 'boolean') return Number(value);
  return value;
}

let database: FreshMysqlDatabase;
let connection: mysql.Connection;

beforeAll(async () => {
  database = await freshMysqlDatabase('raw');
  connection = await mysql.createConnection({ uri: database.url, charset: 'UTF8MB4_BIN' });
  // As the sink's connections run: identifiers in double quotes, strict mode (a conversion warning in an UPDATE is an error).
  await connection.query("set session sql_mode = 'ANSI_QUOTES,STRICT_ALL_TABLES', time_zone = '+00:00'");
});

afterAll(async () => {
  await connection.end();
  await database.drop();
});

describe('reading raw in SQL (mysql, on MariaDB)', () => {
  it('gives what the normalizers give for every value and conversion, and fills columns with it under strict mode', async () => {
    const raws = RAW_PROBES;
    await connection.query('create table probe (position integer, raw longtext) character set utf8mb4 collate utf8mb4_bin');
    for (const [position, raw] of raws.entries()) await connection.query('insert into probe values (?, ?)', [position, JSON.stringify(raw)]);
    const selects = rawValueSelects((path, conversion) => mysqlAdapter.rawValue(path, conversion));
    const [rows] = (await connection.query(`select position, ${selects.join(', ')} from probe order by position`)) as unknown as [Record<string, unknown>[]];
    expect(rows).toHaveLength(raws.length);
    expect(rawValueMismatches(rows, plain)).toEqual([]);
    // The same expressions in an UPDATE, where strict mode turns a conversion warning into an error.
    const columns = RAW_CONVERSIONS.map(
      (conversion) => `add column "${conversion}" ${conversion === 'text' ? 'longtext' : conversion === 'timestamp' ? 'varchar(32)' : 'double'}`,
    );
    await connection.query(`alter table probe ${columns.join(', ')}`);
    await connection.query(
      `update probe set ${RAW_CONVERSIONS.map((conversion) => `"${conversion}" = ${mysqlAdapter.rawValue(['v'], conversion)}`).join(', ')}`,
    );
  });

  it('stores declared number and boolean values as written, and fills them from raw when added later', async () => {
    const sink = await mysqlSinkFactory.create({ type: 'mysql', url: database.url }, { logger: pino({ level: 'silent' }) });
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
    const [rows] = (await connection.query('select id, score, consent, score_again, consent_again from forms order by id')) as unknown as [
      Record<string, unknown>[],
    ];
    const flag = (value: unknown) => (value === null ? null : Number(value));
    expect(rows.map((row) => [row.id, row.score, flag(row.consent), row.score_again, flag(row.consent_again)])).toEqual([
      ['a', 4.5, 1, 4.5, 1],
      ['b', -2, 0, -2, 0],
      ['c', null, null, null, null],
    ]);
  });
});
