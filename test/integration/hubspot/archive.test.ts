import { afterEach, describe, expect, it } from 'vitest';
import { chunks } from '../../../src/base/chunks.js';
import { callsTable } from '../sink-conformance/fixtures.js';
import { inboundCall, startTarget, type HubSpotTarget } from './harness.js';

const A = 'acme';

describe('hubspot deletion is its batch archive', () => {
  let target: HubSpotTarget;
  afterEach(async () => target.close());

  it('reads the calls by the unique property, archives them by object id, at most 100 a request', async () => {
    target = await startTarget({}, { associateContacts: false });
    const records = Array.from({ length: 160 }, (_, index) => inboundCall(A, `c${String(index).padStart(3, '0')}`));
    for (const part of chunks(records, target.sink.capabilities.maxBatchSize)) {
      await target.sink.write({ businessId: A, table: callsTable, records: part, deadLetters: [] }, {});
    }
    const gone = records.slice(0, 150).map((record) => record.id);
    const before = target.fake.requests().length;
    expect(await target.sink.records.markDeleted(A, callsTable, [...gone, 'never-synced'])).toBe(150);

    const requests = target.fake.requests().slice(before);
    const reads = requests.filter((request) => request.path === '/crm/v3/objects/calls/batch/read');
    const archives = requests.filter((request) => request.path === '/crm/v3/objects/calls/batch/archive');
    expect(reads.map((request) => request.body)).toMatchObject([
      { idProperty: 'callsync_id', inputs: gone.slice(0, 100).map((id) => ({ id: `${A}:calls:${id}` })) },
      { idProperty: 'callsync_id', inputs: [...gone.slice(100), 'never-synced'].map((id) => ({ id: `${A}:calls:${id}` })) },
    ]);
    expect(archives.map((request) => [request.status, (request.body as { inputs: unknown[] }).inputs.length])).toEqual([
      [204, 100],
      [204, 50],
    ]);
    const archivedObjectIds = archives.flatMap((request) => (request.body as { inputs: { id: string }[] }).inputs.map((input) => input.id));
    expect(archivedObjectIds.sort()).toEqual(
      target.fake
        .archivedCalls()
        .map((call) => call.id)
        .sort(),
    );
    expect(target.fake.calls()).toHaveLength(10);
    expect(await target.sink.records.count(A, callsTable)).toBe(10);
  });
});
