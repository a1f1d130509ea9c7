import { afterEach, describe, expect, it } from 'vitest';
import type { SyncRecord } from '../../../src/sink/sink.js';
import type { ArchivedUniqueValue } from '../../fakes/hubspot/index.js';
import { callsTable } from '../sink-conformance/fixtures.js';
import { inboundCall, startTarget, type HubSpotTarget } from './harness.js';

const A = 'acme';
const CALLER = '+14155550123';
const readings: readonly ArchivedUniqueValue[] = ['held', 'freed'];

// HubSpot documents no API to restore an archived call, and not whether a call in its recycling
// bin keeps its unique value; the fake plays both readings and the connector must be right under each.
describe.each(readings)('a call archived in HubSpot whose record comes back upstream (archived unique value %s)', (archivedUniqueValue) => {
  let target: HubSpotTarget;
  afterEach(async () => target.close());

  const write = (records: readonly SyncRecord[], cursor: string) =>
    target.sink.write({ businessId: A, table: callsTable, records: [...records], deadLetters: [] }, { cursor });

  /** The live calls per record id: exactly one each is what "one call per record" means. */
  function liveCallsByRecord(): Map<string, string[]> {
    const byRecord = new Map<string, string[]>();
    for (const call of target.fake.calls()) {
      const id = (call.properties.callsync_id ?? '').replace(`${A}:calls:`, '');
      byRecord.set(id, [...(byRecord.get(id) ?? []), call.id]);
    }
    return byRecord;
  }

  it('ends as exactly one live call per record, associated with its contact, and the mirror is exact', async () => {
    target = await startTarget({ contacts: [{ phone: CALLER }], readings: { archivedUniqueValue } });
    const records = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((id) => inboundCall(A, id));
    await write(records, 'p1');
    expect(await target.sink.records.markDeleted(A, callsTable, ['c2', 'c4', 'c5'])).toBe(3);
    expect(target.fake.calls()).toHaveLength(3);
    expect(target.fake.archivedCalls()).toHaveLength(3);

    // Upstream recovers and lists them again, unchanged.
    expect(await write(records, 'p2')).toEqual({ written: 3, unchanged: 3, deadLettered: 0 });
    const live = liveCallsByRecord();
    expect([...live.keys()].sort()).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
    expect([...live.values()].every((ids) => ids.length === 1)).toBe(true);
    const contactId = target.fake.contacts()[0]?.id;
    const associated = new Set(
      target.fake
        .associations()
        .filter((pair) => pair.toId === contactId)
        .map((pair) => pair.fromId),
    );
    expect(target.fake.calls().every((call) => associated.has(call.id))).toBe(true);
    expect(await target.sink.records.listIds(A, callsTable)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
    expect(await target.sink.deadLetters.list({ businessId: A })).toEqual([]);

    // The same record may go and come back again: still one live call.
    expect(await target.sink.records.markDeleted(A, callsTable, ['c2'])).toBe(1);
    expect(await write(records.slice(0, 2), 'p3')).toEqual({ written: 1, unchanged: 1, deadLettered: 0 });
    expect(liveCallsByRecord().get('c2')).toHaveLength(1);
    expect(target.fake.calls()).toHaveLength(6);
    expect(target.fake.archivedCalls()).toHaveLength(4);
  });

  it('moves the unique value aside before archiving, so nothing in the recycling bin holds it', async () => {
    target = await startTarget({ readings: { archivedUniqueValue } }, { associateContacts: false });
    await write([inboundCall(A, 'c1'), inboundCall(A, 'c2')], 'p1');
    const before = target.fake.requests().length;
    expect(await target.sink.records.markDeleted(A, callsTable, ['c1'])).toBe(1);
    const paths = target.fake
      .requests()
      .slice(before)
      .map((request) => `${request.path} ${request.status}`);
    expect(paths).toEqual(['/crm/v3/objects/calls/batch/read 200', '/crm/v3/objects/calls/batch/update 200', '/crm/v3/objects/calls/batch/archive 204']);
    const [archived] = target.fake.archivedCalls();
    expect(archived?.properties.callsync_id).toBe(`${A}:calls:c1#archived-${archived?.id ?? ''}`);
  });
});

// A call archived with its value in place: by a person in HubSpot's app, or by callsync before it
// moved values aside. Only a person can restore it (HubSpot has no API for that).
describe('a call archived with its unique value in place', () => {
  let target: HubSpotTarget;
  afterEach(async () => target.close());

  const write = (cursor: string) => target.sink.write({ businessId: A, table: callsTable, records: [inboundCall(A, 'c1')], deadLetters: [] }, { cursor });

  it('held by the archived call: a dead letter names the call and the fix; restored by hand, the upsert finds it again', async () => {
    target = await startTarget({ readings: { archivedUniqueValue: 'held' } }, { associateContacts: false });
    await write('p1');
    const [original] = target.fake.calls();
    target.fake.archiveByHand(original?.id ?? '');
    expect(await write('p2')).toEqual({ written: 0, unchanged: 0, deadLettered: 1 });
    expect(target.fake.calls()).toEqual([]);
    const [letter] = await target.sink.deadLetters.list({ businessId: A });
    expect(letter?.reason).toMatch(
      new RegExp(
        `^hubspot: call ${original?.id ?? ''} in HubSpot's recycling bin still holds callsync_id acme:calls:c1; fix: restore that call in HubSpot \\(knowledge\\.hubspot\\.com/records/restore-deleted-activity-in-a-record\\), then run callsync dead-letters replay \\(hubspot: Unique property callsync_id`,
      ),
    );

    expect(target.fake.restoreByHand(original?.id ?? '')).toBeUndefined();
    await write('p3');
    expect(target.fake.calls().map((call) => call.id)).toEqual([original?.id]);
  });

  it('freed by the archived call: the upsert creates one new call, and the old one can no longer be restored beside it', async () => {
    target = await startTarget({ readings: { archivedUniqueValue: 'freed' } }, { associateContacts: false });
    await write('p1');
    const [original] = target.fake.calls();
    target.fake.archiveByHand(original?.id ?? '');
    expect(await write('p2')).toEqual({ written: 0, unchanged: 1, deadLettered: 0 });
    const live = target.fake.calls();
    expect(live.map((call) => call.properties.callsync_id)).toEqual(['acme:calls:c1']);
    expect(live[0]?.id).not.toBe(original?.id);
    expect(target.fake.restoreByHand(original?.id ?? '')).toMatchObject({ property: 'callsync_id', value: 'acme:calls:c1' });
    expect(target.fake.calls()).toHaveLength(1);
  });
});
