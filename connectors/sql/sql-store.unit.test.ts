import { describe, expect, it } from 'vitest';
import { postgresAdapter } from '../postgres/postgres-adapter.js';
import { sqliteAdapter } from '../sqlite/sqlite-adapter.js';
import { assertIdentifier, assertStreamTable } from './schema.js';
import { StatementCache, checkpointAdvanceSql, deadLetterUpsertSql, recordUnnestUpsertSql, recordUpsertSql } from './sql-store.js';

const sms = { stream: 'sms', table: 'sms', columns: [{ name: 'created_at', type: 'timestamp' as const }] };

describe('SQL statements', () => {
  it('numbers Postgres placeholders across rows and updates only rows that differ', () => {
    const text = recordUpsertSql(postgresAdapter('callsync'), sms, 2);
    expect(text).toContain('insert into "callsync"."sms" as t ("business_id", "id", "source", "created_at", "raw", "synced_at")');
    expect(text).toContain('values ($1, $2, $3, $4, $5, $6), ($7, $8, $9, $10, $11, $12)');
    expect(text).toContain(
      'where t."source" is distinct from excluded."source" or t."created_at" is distinct from excluded."created_at" or t."raw" is distinct from excluded."raw"',
    );
    expect(text).not.toMatch(/t\."synced_at" is distinct/);
  });

  it('upserts Postgres rows from one typed array per column, updating only rows that differ', () => {
    const table = { ...sms, columns: [...sms.columns, { name: 'n', type: 'integer' as const }] };
    const text = recordUnnestUpsertSql(postgresAdapter('callsync'), table);
    expect(text).toContain('insert into "callsync"."sms" as t ("business_id", "id", "source", "created_at", "n", "raw", "synced_at") ');
    expect(text).toContain('select * from unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::bigint[], $6::jsonb[], $7::timestamptz[]) as u(');
    expect(text).toContain(
      'do update set "source" = excluded."source", "created_at" = excluded."created_at", "n" = excluded."n", "raw" = excluded."raw", "synced_at" = excluded."synced_at"',
    );
    expect(text).toContain(
      'where (t."source", t."created_at", t."n", t."raw") is distinct from (excluded."source", excluded."created_at", excluded."n", excluded."raw")',
    );
  });

  it('clears deleted_at on a row that comes back, and rewrites a deleted row even when its content is the same', () => {
    for (const text of [recordUpsertSql(sqliteAdapter, sms, 1), recordUnnestUpsertSql(postgresAdapter('callsync'), sms)]) {
      expect(text).toContain('"synced_at" = excluded."synced_at", "deleted_at" = null where ');
      expect(text).toMatch(/ or t\."deleted_at" is not null$/);
    }
  });

  it('asks the adapter, not its name, whether one statement takes any number of rows', () => {
    const wide = { ...sms, columns: Array.from({ length: 95 }, (_, i) => ({ name: `c${i}`, type: 'text' as const })) };
    // 100 columns a row: SQLite's 32,766 bind parameters fit 327 rows; unnest takes any number.
    expect(new StatementCache(sqliteAdapter).rowsPerStatement(wide)).toBe(327);
    expect(new StatementCache(postgresAdapter('s')).rowsPerStatement(wide)).toBe(Number.POSITIVE_INFINITY);
    expect(new StatementCache({ ...postgresAdapter('s'), supportsUnnestUpsert: false }).rowsPerStatement(wide)).toBe(655);
  });

  it('runs one prepared one-row statement per record where the executor offers runEach, else one multi-row statement', async () => {
    const records = ['a', 'b', 'c'].map((id) => ({
      businessId: 'biz',
      id,
      source: 'v1' as const,
      fields: { created_at: '2026-01-01T00:00:00Z' },
      raw: { id },
    }));
    const statements = new StatementCache(sqliteAdapter);
    const each: { sql: string; rows: readonly (readonly unknown[])[] }[] = [];
    const runs: { sql: string; parameters: readonly unknown[] }[] = [];
    const run = (sql: string, parameters: readonly unknown[]) => (runs.push({ sql, parameters }), Promise.resolve(parameters.length / 6));
    const runEach = (sql: string, rows: readonly (readonly unknown[])[]) => (each.push({ sql, rows }), Promise.resolve(rows.length));
    expect(await statements.runUpsert({ run, runEach }, sms, records, 'now')).toBe(3);
    expect(runs).toEqual([]);
    expect(each).toHaveLength(1);
    expect(each[0]?.sql).toBe(recordUpsertSql(sqliteAdapter, sms, 1));
    expect(each[0]?.rows).toEqual(records.map((record) => ['biz', record.id, 'v1', '2026-01-01T00:00:00Z', JSON.stringify(record.raw), 'now']));
    expect(await statements.runUpsert({ run }, sms, records, 'now')).toBe(3);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.sql).toBe(recordUpsertSql(sqliteAdapter, sms, 3));
    expect(runs[0]?.parameters).toEqual(each[0]?.rows.flat());
  });

  it('uses anonymous placeholders and IS NOT in SQLite', () => {
    const text = recordUpsertSql(sqliteAdapter, sms, 1);
    expect(text).toContain('insert into "sms" as t');
    expect(text).toContain('values (?, ?, ?, ?, ?, ?)');
    expect(text).toContain('t."raw" is not excluded."raw"');
  });

  it('bumps attempts of a known dead letter and adds to records_synced on write', () => {
    expect(deadLetterUpsertSql(sqliteAdapter)).toMatch(
      /values \(\?, \?, \?, \?, \?, \?, \?, 1\) on conflict \(business_id, stream, fingerprint\).*attempts = t\.attempts \+ 1/,
    );
    expect(checkpointAdvanceSql(postgresAdapter('s'))).toContain('records_synced = t.records_synced + excluded.records_synced');
  });

  it.each(['Calls', 'calls; drop table x', '1calls', 'a'.repeat(64), ''])('refuses identifier %j', (name) => {
    expect(() => assertIdentifier(name, 'table')).toThrow(/not a safe SQL identifier/);
  });

  it('refuses stream columns that shadow the fixed ones', () => {
    expect(() => assertStreamTable({ ...sms, columns: [{ name: 'raw', type: 'text' }] })).toThrow(/fixed column/);
    expect(() => assertStreamTable({ ...sms, columns: [{ name: 'deleted_at', type: 'timestamp' }] })).toThrow(/fixed column/);
    expect(() => assertStreamTable({ ...sms, table: 'sms"x' })).toThrow(/sms/);
  });
});
