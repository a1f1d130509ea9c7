import { describe, expect, it } from 'vitest';
import { StatementCache, deadLetterUpsertSql, recordUpsertSql } from '../sql/statements.js';
import { sqliteAdapter } from './target.js';

const sms = { stream: 'sms', table: 'sms', columns: [{ name: 'created_at', type: 'timestamp' as const }] };

describe('SQLite statements', () => {
  it('clears deleted_at on a row that comes back, and rewrites a deleted row even when its content is the same', () => {
    const text = recordUpsertSql(sqliteAdapter, sms, 1);
    expect(text).toContain('"synced_at" = excluded."synced_at", "deleted_at" = null where ');
    expect(text).toMatch(/ or t\."deleted_at" is not null$/);
  });

  it('chunks VALUES lists under the bind-parameter limit', () => {
    const wide = { ...sms, columns: Array.from({ length: 95 }, (_, i) => ({ name: `c${i}`, type: 'text' as const })) };
    // 100 columns a row: SQLite's 32,766 bind parameters fit 327 rows.
    expect(new StatementCache(sqliteAdapter).rowsPerStatement(wide)).toBe(327);
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

  it('bumps attempts of a known dead letter', () => {
    expect(deadLetterUpsertSql(sqliteAdapter)).toMatch(
      /values \(\?, \?, \?, \?, \?, \?, \?, 1\) on conflict \(business_id, stream, fingerprint\).*attempts = t\.attempts \+ 1/,
    );
  });
});
