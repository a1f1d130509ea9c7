import { describe, expect, it } from 'vitest';
import { StatementCache, recordStagedUpsertSql } from '../sql/statements.js';
import { duckdbAdapter } from './target.js';

const sms = { stream: 'sms', table: 'sms', columns: [{ name: 'created_at', type: 'timestamp' as const }] };

describe('DuckDB statements', () => {
  it('merges the staging table in one statement, updating only rows that differ or were deleted', () => {
    const text = recordStagedUpsertSql(duckdbAdapter, sms, 'callsync_stage_x');
    expect(text).toBe(
      'insert into "sms" as t ("business_id", "id", "source", "created_at", "raw", "synced_at") ' +
        'select "business_id", "id", "source", "created_at", "raw", "synced_at" from "callsync_stage_x" ' +
        'on conflict (business_id, id) do update set "source" = excluded."source", "created_at" = excluded."created_at", "raw" = excluded."raw", ' +
        '"synced_at" = excluded."synced_at", "deleted_at" = null ' +
        'where t."source" is distinct from excluded."source" or t."created_at" is distinct from excluded."created_at" or t."raw" is distinct from excluded."raw" ' +
        'or t."deleted_at" is not null',
    );
  });

  it('appends a whole batch to a staging table made afresh, then merges it once', async () => {
    const records = ['a', 'b'].map((id) => ({ businessId: 'biz', id, source: 'v1' as const, fields: { created_at: '2026-01-01T00:00:00Z' }, raw: { id } }));
    const runs: string[] = [];
    const appends: { table: string; rows: readonly (readonly unknown[])[] }[] = [];
    const executor = {
      run: (sql: string) => (runs.push(sql), Promise.resolve(sql.startsWith('insert') ? 2 : 0)),
      append: (table: string, rows: readonly (readonly unknown[])[]) => (appends.push({ table, rows }), Promise.resolve()),
    };
    const statements = new StatementCache(duckdbAdapter);
    expect(statements.rowsPerStatement(sms)).toBe(Number.POSITIVE_INFINITY);
    expect(await statements.runUpsert(executor, sms, records, 'now')).toBe(2);
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatch(/^create or replace temp table "callsync_stage_[0-9a-f]{16}" as select .* from "sms" limit 0$/);
    expect(appends).toEqual([
      {
        table: /"(callsync_stage_[0-9a-f]{16})"/.exec(runs[0] ?? '')?.[1],
        rows: records.map((r) => ['biz', r.id, 'v1', '2026-01-01T00:00:00Z', JSON.stringify(r.raw), 'now']),
      },
    ]);
    expect(runs[1]).toBe(recordStagedUpsertSql(duckdbAdapter, sms, appends[0]?.table ?? ''));
  });

  it('keeps raw as VARCHAR text and timestamps as TIMESTAMPTZ', () => {
    expect(duckdbAdapter.jsonType).toBe('varchar');
    expect(duckdbAdapter.columnType('timestamp')).toBe('timestamptz');
    expect(duckdbAdapter.utcDay('created_at')).toBe(`cast(created_at at time zone 'UTC' as date)`);
  });
});
