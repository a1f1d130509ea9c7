import { describe, expect, it } from 'vitest';
import { StatementCache, checkpointAdvanceSql, recordUnnestUpsertSql, recordUpsertSql } from '../sql/statements.js';
import { postgresAdapter } from './target.js';

const sms = { stream: 'sms', table: 'sms', columns: [{ name: 'created_at', type: 'timestamp' as const }] };

describe('Postgres statements', () => {
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
    const text = recordUnnestUpsertSql(postgresAdapter('callsync'), sms);
    expect(text).toContain('"synced_at" = excluded."synced_at", "deleted_at" = null where ');
    expect(text).toMatch(/ or t\."deleted_at" is not null$/);
  });

  it('asks the adapter, not its name, whether one statement takes any number of rows', () => {
    const wide = { ...sms, columns: Array.from({ length: 95 }, (_, i) => ({ name: `c${i}`, type: 'text' as const })) };
    // 100 columns a row: unnest takes any number; without it, 65,535 bind parameters fit 655 rows.
    expect(new StatementCache(postgresAdapter('s')).rowsPerStatement(wide)).toBe(Number.POSITIVE_INFINITY);
    expect(new StatementCache({ ...postgresAdapter('s'), supportsUnnestUpsert: false }).rowsPerStatement(wide)).toBe(655);
  });

  it('adds to records_synced on write', () => {
    expect(checkpointAdvanceSql(postgresAdapter('s'))).toContain('records_synced = t.records_synced + excluded.records_synced');
  });
});
