import { afterEach, describe, expect, it } from 'vitest';
import type { Batch, SyncRecord } from '../../../src/sink/sink.js';
import { DEFAULT_CUSTOM_TASK_FIELDS } from '../../fakes/salesforce/store.js';
import { inboundCall } from '../hubspot/harness.js';
import { callsTable } from '../sink-conformance/fixtures.js';
import { startSalesforceSink, type SalesforceUnderTest } from './harness.js';

let target: SalesforceUnderTest | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

const batchOf = (records: SyncRecord[]): Batch => ({ businessId: 'acme', table: callsTable, records, deadLetters: [] });

describe('Salesforce target against the fake org', () => {
  it('retries UNABLE_TO_LOCK_ROW and keeps other per-record refusals as dead letters with statusCode and message', async () => {
    target = await startSalesforceSink({}, { who: null, mapping: { fields: { tracking_number_id: 'CallObject' } } });
    target.org.fake.lockRows(2);
    const long = inboundCall('acme', 'c3', { tracking_number_id: 'x'.repeat(300) });
    const result = await target.sink.write(batchOf([inboundCall('acme', 'c1'), inboundCall('acme', 'c2'), long]), { cursor: '1' });
    expect(result).toEqual({ written: 2, unchanged: 0, deadLettered: 1 });
    const [letter] = await target.sink.deadLetters.list({ businessId: 'acme' });
    expect(letter?.reason).toMatch(/^salesforce: STRING_TOO_LONG: CallObject: data value too large/);
    expect(
      target.org.fake
        .tasks()
        .map((task) => task.fields.Callsync_Id__c)
        .sort(),
    ).toEqual(['acme:calls:c1', 'acme:calls:c2']);
  });

  it('onDelete: mark sets the deleted field and keeps the Task; a record that comes back is unmarked', async () => {
    target = await startSalesforceSink({}, { who: null, onDelete: 'mark' });
    await target.sink.write(batchOf([inboundCall('acme', 'c1'), inboundCall('acme', 'c2')]), { cursor: '1' });
    expect(await target.sink.records.markDeleted('acme', callsTable, ['c1'])).toBe(1);
    const marked = () =>
      target?.org.fake
        .tasks()
        .filter((task) => task.fields.Callsync_Deleted__c === true)
        .map((task) => task.fields.Callsync_Id__c);
    expect(marked()).toEqual(['acme:calls:c1']);
    expect(target.org.fake.tasks()).toHaveLength(2);
    await target.sink.write(batchOf([inboundCall('acme', 'c1')]), { cursor: '2' });
    expect(marked()).toEqual([]);
  });

  it.each([
    ['missing', DEFAULT_CUSTOM_TASK_FIELDS.filter((field) => field.name !== 'Callsync_Id__c'), /sink\.externalIdField Callsync_Id__c is not a field of Task/],
    [
      'not unique',
      DEFAULT_CUSTOM_TASK_FIELDS.map((field) => (field.name === 'Callsync_Id__c' ? { ...field, unique: false } : field)),
      /sink\.externalIdField Callsync_Id__c is not Unique on Task/,
    ],
    [
      'not an external id',
      DEFAULT_CUSTOM_TASK_FIELDS.map((field) => (field.name === 'Callsync_Id__c' ? { ...field, externalId: false } : field)),
      /is not marked External ID on Task/,
    ],
  ])('refuses to start when the external id field is %s, naming the config key and the setup step', async (_name, customTaskFields, message) => {
    target = await startSalesforceSink({ customTaskFields }, { who: null });
    await expect(target.sink.prepare([callsTable])).rejects.toThrow(message);
    await expect(target.sink.prepare([callsTable])).rejects.toThrow(/one-time org setup, step 3/);
  });

  it('signs in with the client credentials flow, and a wrong secret is one line naming the keys, the secret scrubbed', async () => {
    target = await startSalesforceSink(
      { clientSecret: 'right-secret-value' },
      { who: null, auth: { flow: 'clientCredentials', consumerKey: '3MVG9FAKECONSUMERKEY', consumerSecret: 'right-secret-value' } },
    );
    await target.sink.write(batchOf([inboundCall('acme', 'c1')]), { cursor: '1' });
    expect(target.org.fake.tokensIssued()).toEqual({ client_credentials: 1 });
    const wrong = await startSalesforceSink(
      { clientSecret: 'right-secret-value' },
      { who: null, auth: { flow: 'clientCredentials', consumerKey: '3MVG9FAKECONSUMERKEY', consumerSecret: 'wrong-secret-value' } },
    );
    try {
      const failure = await wrong.sink.prepare([callsTable]).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      expect(failure?.message, failure?.message).toMatch(/sink\.auth\.consumerKey or sink\.auth\.consumerSecret/);
      expect(failure?.message).not.toMatch(/\n|wrong-secret-value/);
      expect(wrong.logs.join('')).not.toContain('wrong-secret-value');
    } finally {
      await wrong.close();
    }
  });

  it.each([
    [['Contact', 'Lead'], 'Contact'],
    [['Lead', 'Contact'], 'Lead'],
  ])('with who.objects %j a number held by a Contact and a Lead goes to the %s, matched on a custom phone field too', async (objects, winner) => {
    target = await startSalesforceSink(
      { phoneFields: ['Phone', 'MobilePhone', 'Other_Phone__c'] },
      { who: { objects, phoneFields: ['Phone', 'MobilePhone', 'Other_Phone__c'] } },
    );
    const lead = target.org.fake.add('Lead', { LastName: 'l', Company: 'x', Other_Phone__c: '415 555 0123 ext. 7' });
    const contact = target.org.fake.add('Contact', { LastName: 'c', Phone: '(415) 555-0123' });
    await target.sink.write(batchOf([inboundCall('acme', 'c1', { from_number: '+14155550123' })]), { cursor: '1' });
    expect(target.org.fake.tasks()[0]?.fields.WhoId).toBe(winner === 'Contact' ? contact : lead);
  });
});
