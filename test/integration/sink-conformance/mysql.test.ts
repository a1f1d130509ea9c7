import mysql from 'mysql2/promise';
import { pino } from 'pino';
import { mysqlSinkFactory } from '../../../connectors/mysql/index.js';
import { freshMysqlDatabase } from '../../support/mysql-database.js';
import { voicemailRecord } from './fixtures.js';
import { toStoredRow } from './sql-rows.js';
import { describeSinkConformance } from './suite.js';

describeSinkConformance({
  name: 'mysql',
  deliveredBeforeCommit: false,
  async create() {
    const database = await freshMysqlDatabase('sink');
    const sink = await mysqlSinkFactory.create({ type: 'mysql', url: database.url }, { logger: pino({ level: 'silent' }) });
    const connection = await mysql.createConnection({ uri: database.url, multipleStatements: true });
    return {
      sink,
      async readRows(table, businessId) {
        const [rows] = await connection.query(`select * from \`${table.table}\` where business_id = ? and deleted_at is null order by id`, [businessId]);
        return (rows as Record<string, unknown>[]).map((row) => toStoredRow(row, table));
      },
      async readDeleted(table, businessId) {
        const [rows] = await connection.query(`select id from \`${table.table}\` where business_id = ? and deleted_at is not null order by id`, [businessId]);
        return (rows as { id: string }[]).map((row) => row.id);
      },
      rejectableRecord: (businessId) => ({
        record: voicemailRecord(businessId, 'v2', { duration_seconds: 'forty-two' }),
        reason: /Incorrect integer value/,
      }),
      async breakCheckpoints() {
        await connection.query(`
          create trigger crash_insert before insert on sync_state for each row signal sqlstate '45000' set message_text = 'simulated crash';
          create trigger crash_update before update on sync_state for each row signal sqlstate '45000' set message_text = 'simulated crash';`);
        return async () => {
          await connection.query('drop trigger crash_insert; drop trigger crash_update;');
        };
      },
      async cleanup() {
        await connection.end();
        await database.drop();
      },
    };
  },
});
