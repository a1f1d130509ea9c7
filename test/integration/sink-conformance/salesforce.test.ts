import type { Json } from '../../../src/sink/sink.js';
import type { FieldValue } from '../../fakes/salesforce/index.js';
import { startSalesforceSink } from '../salesforce/harness.js';
import { voicemailRecord } from './fixtures.js';
import { breakSqliteCheckpoints } from './sqlite-file.js';
import { describeSinkConformance, type StoredRow } from './suite.js';

// Salesforce keeps calls and voicemails as Tasks; the suite reads them back from the fake org
// through the record field, which holds each record as synced. Deleted Tasks are in the recycle bin.
describeSinkConformance({
  name: 'salesforce',
  deliveredBeforeCommit: true,
  customTables: false,
  async create() {
    const target = await startSalesforceSink({}, { who: null });
    const { fake } = target.org;
    const statePath = String((target.org.sinkSection().state as { path: string }).path);
    const idsOf = (tasks: { fields: Readonly<Record<string, FieldValue>> }[], prefix: string): string[] =>
      tasks
        .map((task) => String(task.fields.Callsync_Id__c ?? ''))
        .filter((id) => id.startsWith(prefix))
        .map((id) => id.slice(prefix.length));
    return {
      sink: target.sink,
      readRows(table, businessId) {
        const prefix = `${businessId}:${table.stream}:`;
        const rows = fake
          .tasks()
          .filter((task) => String(task.fields.Callsync_Id__c ?? '').startsWith(prefix))
          .map((task): StoredRow => {
            const record = JSON.parse(String(task.fields.Callsync_Record__c ?? '{}')) as { source: string; fields: StoredRow['fields']; raw: Json };
            return { businessId, id: String(task.fields.Callsync_Id__c).slice(prefix.length), source: record.source, fields: record.fields, raw: record.raw };
          });
        return Promise.resolve(rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
      },
      readDeleted(table, businessId) {
        const prefix = `${businessId}:${table.stream}:`;
        const live = new Set(idsOf(fake.tasks(), prefix));
        return Promise.resolve([...new Set(idsOf(fake.deletedTasks(), prefix))].filter((id) => !live.has(id)).sort());
      },
      rejectableRecord: (businessId) => ({
        record: voicemailRecord(businessId, 'v2', { created_at: 'not a date' }),
        reason: /^salesforce: created_at "not a date" is not a date/,
      }),
      breakCheckpoints: () => breakSqliteCheckpoints(statePath),
      cleanup: () => target.close(),
    };
  },
});
