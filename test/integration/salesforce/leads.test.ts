import { afterEach, describe, expect, it } from 'vitest';
import type { Batch, SyncRecord } from '../../../src/sink/sink.js';
import { callsTable, voicemailsTable } from '../sink-conformance/fixtures.js';
import { inboundCall, voicemail } from '../hubspot/harness.js';
import { startSalesforceSink, type SalesforceUnderTest } from './harness.js';

const NEW_CALLER = '+14155550777';
const FIFTEEN_MINUTES = 15 * 60_000;

let target: SalesforceUnderTest | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

function batchOf(table: Batch['table'], records: SyncRecord[]): Batch {
  return { businessId: 'acme', table, records, deadLetters: [] };
}

describe.each([
  ['SOQL finds the new Lead at once', false],
  ['SOQL refused, SOSL lags 15 minutes behind', true],
])('createLeads: two calls from one new number minutes apart (%s)', (_name, refuseLeadingWildcard) => {
  it('creates one Lead, in one process and after a restart, and both Tasks name it', async () => {
    target = await startSalesforceSink({ indexLagMs: FIFTEEN_MINUTES, readings: { refuseLeadingWildcard } }, { who: { createLeads: true } });
    const first = await target.sink.write(batchOf(callsTable, [inboundCall('acme', 'c1', { from_number: NEW_CALLER })]), { cursor: '1' });
    expect(first.written).toBe(1);
    expect(target.org.fake.leads()).toHaveLength(1);
    const second = await target.sink.write(batchOf(callsTable, [inboundCall('acme', 'c2', { from_number: NEW_CALLER })]), { cursor: '2' });
    expect(second.written).toBe(1);
    // A new process: nothing cached, the search index still behind.
    const restarted = await target.reopen();
    await restarted.write(batchOf(voicemailsTable, [voicemail('acme', '3', { from_number: NEW_CALLER })]), { highWater: '3' });
    const leads = target.org.fake.leads();
    expect(leads).toHaveLength(1);
    expect(leads[0]?.fields.Phone).toBe(NEW_CALLER);
    expect(target.org.fake.tasks().map((task) => task.fields.WhoId)).toEqual([leads[0]?.Id, leads[0]?.Id, leads[0]?.Id]);
    const searched = target.org.fake.requests().some((request) => request.path.includes('/search?'));
    expect(searched).toBe(refuseLeadingWildcard);
  });

  it('creates one Lead when two streams write calls from the new number at the same time', async () => {
    target = await startSalesforceSink({ indexLagMs: FIFTEEN_MINUTES, readings: { refuseLeadingWildcard } }, { who: { createLeads: true } });
    const sink = target.sink;
    await Promise.all([
      sink.write(batchOf(callsTable, [inboundCall('acme', 'c1', { from_number: NEW_CALLER })]), { cursor: '1' }),
      sink.write(batchOf(voicemailsTable, [voicemail('acme', '2', { from_number: NEW_CALLER })]), { highWater: '2' }),
    ]);
    expect(target.org.fake.leads()).toHaveLength(1);
  });
});
