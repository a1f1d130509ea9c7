import { afterEach, describe, expect, it } from 'vitest';
import type { Batch, StreamTable, SyncRecord } from '../../../src/sink/sink.js';
import { inboundCall, voicemail } from '../hubspot/harness.js';
import { callsTable, voicemailsTable } from '../sink-conformance/fixtures.js';
import { startSalesforceSink, type SalesforceUnderTest } from './harness.js';

let target: SalesforceUnderTest | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

const number = (index: number): string => `+1415${String(3_000_000 + index)}`;
const batchOf = (table: StreamTable, records: SyncRecord[]): Batch => ({ businessId: 'acme', table, records, deadLetters: [] });

/** API requests (as the org counts them) that `work` made. */
async function requestsOf(work: () => Promise<unknown>): Promise<number> {
  const before = target?.org.fake.usage() ?? 0;
  await work();
  return (target?.org.fake.usage() ?? 0) - before;
}

// Salesforce counts every REST request against the org's daily allocation, a composite request once.
describe('Salesforce API requests per write, as a backfill writes', () => {
  it('a page of 500 calls from 250 new callers costs two: one composite of phone queries, one of upserts; 100 voicemails two more', async () => {
    target = await startSalesforceSink();
    const { sink, org } = target;
    await sink.prepare([callsTable, voicemailsTable]);
    // Every fifth caller is a Contact, so the queries have rows to match.
    for (let index = 0; index < 250; index += 5) org.fake.add('Contact', { LastName: `c${index}`, Phone: number(index) });

    const calls = Array.from({ length: 500 }, (_, index) => inboundCall('acme', `c${index}`, { from_number: number(Math.floor(index / 2)) }));
    expect(await requestsOf(() => sink.write(batchOf(callsTable, calls), { cursor: '1' }))).toBe(2);
    const voicemails = Array.from({ length: 100 }, (_, index) => voicemail('acme', `v${index}`, { from_number: number(1000 + index) }));
    expect(await requestsOf(() => sink.write(batchOf(voicemailsTable, voicemails), { cursor: '1' }))).toBe(2);

    const tasks = org.fake.tasks();
    expect(tasks).toHaveLength(600);
    expect(tasks.filter((task) => typeof task.fields.WhoId === 'string')).toHaveLength(100);
  });

  it('a ping right after Salesforce answered (the start-up describe) sends no request', async () => {
    target = await startSalesforceSink({}, { who: null });
    const { sink } = target;
    expect(await requestsOf(() => sink.prepare([callsTable]))).toBe(1);
    expect(await requestsOf(() => sink.ping())).toBe(0);
  });
});
