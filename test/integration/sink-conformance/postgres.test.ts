import pg from 'pg';
import { pino } from 'pino';
import { postgresSinkFactory } from '../../../connectors/postgres/index.js';
import { postgresUrl, uniqueName } from '../services.js';
import { voicemailRecord } from './fixtures.js';
import { integerColumns, toStoredRow } from './sql-rows.js';
import { describeSinkConformance } from './suite.js';

describeSinkConformance({
  name: 'postgres',
  deliveredBeforeCommit: false,
  async create() {
    const schema = uniqueName('sink');
    const sink = await postgresSinkFactory.create({ type: 'postgres', url: postgresUrl, schema }, { logger: pino({ level: 'silent' }) });
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 2 });
    return {
      sink,
      async readRows(table, businessId) {
        const result = await pool.query<Record<string, unknown>>(
          `select * from "${schema}"."${table.table}" where business_id = $1 and deleted_at is null order by id`,
          [businessId],
        );
        return result.rows.map((row) => toStoredRow(row, table, integerColumns(table)));
      },
      async readDeleted(table, businessId) {
        const result = await pool.query<{ id: string }>(
          `select id from "${schema}"."${table.table}" where business_id = $1 and deleted_at is not null order by id`,
          [businessId],
        );
        return result.rows.map((row) => row.id);
      },
      rejectableRecord: (businessId) => ({
        record: voicemailRecord(businessId, 'v2', { transcription_text: 'cut \u0000 off' }),
        reason: /unsupported Unicode escape sequence|invalid byte sequence/,
      }),
      async breakCheckpoints() {
        await pool.query(`
          create function "${schema}".crash() returns trigger language plpgsql as $$
            begin raise exception 'simulated crash'; end $$;
          create trigger crash before insert or update on "${schema}".sync_state
            for each row execute function "${schema}".crash();`);
        return async () => {
          await pool.query(`drop trigger crash on "${schema}".sync_state; drop function "${schema}".crash();`);
        };
      },
      async cleanup() {
        await pool.query(`drop schema if exists "${schema}" cascade`);
        await pool.end();
      },
    };
  },
});
