import { afterEach, describe, expect, it } from 'vitest';
import type { SyncRecord } from '../../../src/sink/sink.js';
import { SEARCH_BOUNDS, type SearchablePhoneReading, type UpsertEcho } from '../../fakes/hubspot/index.js';
import { callsTable, voicemailsTable } from '../sink-conformance/fixtures.js';
import { inboundCall, startTarget, voicemail, type HubSpotTarget } from './harness.js';

const A = 'acme';
const SEARCH = '/crm/v3/objects/contacts/search';

interface SearchBody {
  filterGroups: { filters: { propertyName: string; operator: string; values: string[] }[] }[];
}

const searches = (target: HubSpotTarget) => target.fake.requests().filter((request) => request.path === SEARCH);
const unknownCaller = (index: number) => `+1212555${String(index).padStart(4, '0')}`;

/** Contacts whose numbers people typed every which way, and the E.164 number each one calls from. */
const typed: readonly { readonly properties: Record<string, string>; readonly calls: string }[] = [
  { properties: { firstname: 'Ann', phone: '(415) 555-0101' }, calls: '+14155550101' },
  { properties: { firstname: 'Bo', phone: '415.555.0102' }, calls: '+14155550102' },
  { properties: { firstname: 'Cy', phone: '+1 415 555 0103' }, calls: '+14155550103' },
  { properties: { firstname: 'Di', phone: '4155550104' }, calls: '+14155550104' },
  { properties: { firstname: 'Ed', phone: '+14155550105' }, calls: '+14155550105' },
  { properties: { firstname: 'Flo', mobilephone: '(415) 555-0106' }, calls: '+14155550106' },
  { properties: { firstname: 'Gus', mobilephone: '1-415-555-0107' }, calls: '+14155550107' },
  { properties: { firstname: 'Hal', mobilephone: '+1 (415) 555-0108' }, calls: '+14155550108' },
  { properties: { firstname: 'Ivy', phone: '1 (415) 555-0109' }, calls: '+14155550109' },
];

describe('hubspot call ↔ contact association', () => {
  let target: HubSpotTarget;
  afterEach(async () => target.close());

  it.each<[SearchablePhoneReading, UpsertEcho]>([
    ['national', 'defaults'],
    ['international', 'written'],
  ])(
    'associates every typed phone and mobile format; one search per ≤ 100 new numbers (searchable %s, upsert echoes %s)',
    async (searchablePhone, upsertEcho) => {
      target = await startTarget({
        contacts: [...typed.map((contact) => contact.properties), { firstname: 'Zed', phone: '+1 415 555 0199' }],
        readings: { searchablePhone, upsertEcho },
      });
      const contactIds = new Map(target.fake.contacts().map((contact) => [contact.properties.firstname, contact.id]));
      // Batch 1: the 9 contacts' numbers and 91 unknown ones; batch 2: 58 new unknowns, 42 repeats (cached).
      const first = [
        ...typed.map((contact, index) => inboundCall(A, `k${index}`, { from_number: contact.calls })),
        ...Array.from({ length: 91 }, (_, index) => inboundCall(A, `u${index}`, { from_number: unknownCaller(index) })),
      ];
      const second = [
        ...Array.from({ length: 58 }, (_, index) => inboundCall(A, `n${index}`, { from_number: unknownCaller(1000 + index) })),
        ...Array.from({ length: 42 }, (_, index) =>
          inboundCall(A, `r${index}`, { from_number: index < 9 ? (typed[index]?.calls ?? '') : unknownCaller(index) }),
        ),
      ];
      expect(await target.sink.write({ businessId: A, table: callsTable, records: first, deadLetters: [] }, {})).toEqual({
        written: 100,
        unchanged: 0,
        deadLettered: 0,
      });
      expect(await target.sink.write({ businessId: A, table: callsTable, records: second, deadLetters: [] }, {})).toEqual({
        written: 100,
        unchanged: 0,
        deadLettered: 0,
      });

      const callIds = new Map(target.fake.calls().map((call) => [call.properties.callsync_id, call.id]));
      const expected = [
        ...typed.map((contact, index) => [callIds.get(`${A}:calls:k${index}`), contactIds.get(contact.properties.firstname)]),
        ...typed.map((contact, index) => [callIds.get(`${A}:calls:r${index}`), contactIds.get(contact.properties.firstname)]),
      ];
      expect(
        target.fake
          .associations()
          .map((association) => [association.fromId, association.toId])
          .sort(),
      ).toEqual(expected.sort());

      const bodies = searches(target).map((request) => request.body as SearchBody);
      expect(bodies).toHaveLength(2);
      const searched = bodies.map(
        (body) =>
          new Set(
            body.filterGroups
              .flatMap((group) => group.filters.flatMap((filter) => filter.values))
              .filter((value) => value.startsWith('1') && value.length === 11),
          ),
      );
      expect(searched.map((set) => set.size)).toEqual([100, 58]);
      for (const body of bodies) {
        expect(body.filterGroups.length).toBeLessThanOrEqual(SEARCH_BOUNDS.filterGroups);
        for (const group of body.filterGroups) for (const filter of group.filters) expect(filter.values.length).toBeLessThanOrEqual(SEARCH_BOUNDS.inValues);
        expect(body).toMatchObject({ sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }], after: '0', limit: 200 });
      }
    },
  );

  it('associates a voicemail and an outbound call with the other party', async () => {
    target = await startTarget({ contacts: [{ firstname: 'Bo', mobilephone: '(415) 555-0199' }] });
    const [bo] = target.fake.contacts();
    await target.sink.write({ businessId: A, table: voicemailsTable, records: [voicemail(A, '5')], deadLetters: [] }, {});
    await target.sink.write(
      {
        businessId: A,
        table: callsTable,
        records: [inboundCall(A, '3', { direction: 'outbound', from_number: '+15550100001', to_number: '+14155550199' })],
        deadLetters: [],
      },
      {},
    );
    expect(target.fake.associations().map((association) => association.toId)).toEqual([bo?.id, bo?.id]);
  });

  it('waits out a 429 on the contact search and still associates (never "no contact")', async () => {
    target = await startTarget({ contacts: [{ firstname: 'Ann', phone: '(415) 555-0123' }] });
    await target.sink.prepare([callsTable]);
    target.fake.setFaults({ searchRateLimitNext: 2 });
    const result = await target.sink.write({ businessId: A, table: callsTable, records: [inboundCall(A, '1'), inboundCall(A, '2')], deadLetters: [] }, {});
    expect(result).toEqual({ written: 2, unchanged: 0, deadLettered: 0 });
    expect(searches(target).map((request) => request.status)).toEqual([429, 429, 200]);
    expect(target.fake.associations()).toHaveLength(2);
  });

  it.each([200, 207] as const)('retries association errors answered with %i, then succeeds', async (associationErrorStatus) => {
    target = await startTarget({ contacts: [{ phone: '+14155550123' }], readings: { associationErrorStatus } });
    await target.sink.prepare([callsTable]);
    target.fake.setFaults({ associationErrorsNext: 3 });
    const records = Array.from({ length: 5 }, (_, index) => inboundCall(A, `c${index}`));
    expect(await target.sink.write({ businessId: A, table: callsTable, records, deadLetters: [] }, {})).toEqual({ written: 5, unchanged: 0, deadLettered: 0 });
    expect(target.fake.associations()).toHaveLength(5);
    const statuses = target.fake
      .requests()
      .filter((request) => request.path.includes('associate/default'))
      .map((request) => request.status);
    expect(statuses).toEqual([associationErrorStatus, 200]);
  });

  it('keeps calls whose association keeps failing as dead letters with the reason, counted in the result', async () => {
    target = await startTarget({ contacts: [{ phone: '+14155550123' }] });
    await target.sink.prepare([callsTable]);
    target.fake.setFaults({ associationErrorsNext: 1_000 });
    const records: SyncRecord[] = [inboundCall(A, 'a'), inboundCall(A, 'b'), inboundCall(A, 'c', { from_number: '+19995550000' })];
    const result = await target.sink.write({ businessId: A, table: callsTable, records, deadLetters: [] }, { cursor: 'x' });
    expect(result).toEqual({ written: 3, unchanged: 0, deadLettered: 2 });
    expect(target.fake.calls()).toHaveLength(3);
    const letters = await target.sink.deadLetters.list({ businessId: A, stream: 'calls' });
    expect(letters.map((letter) => (letter.raw as { id: string }).id).sort()).toEqual(['a', 'b']);
    for (const letter of letters)
      expect(letter.reason).toMatch(
        /^hubspot: call \d+ stored, but not associated with contact \d+: Association between call \d+ and contact \d+ could not be created/,
      );
    expect(target.fake.requests().filter((request) => request.path.includes('associate/default'))).toHaveLength(3);
    expect(await target.sink.checkpoints.load(A, 'calls')).toMatchObject({ position: { cursor: 'x' } });
  });

  it('a re-run writes nothing and creates no duplicate calls, contacts or associations', async () => {
    target = await startTarget({ contacts: [{ firstname: 'Ann', phone: '(415) 555-0123' }] }, { createContacts: true });
    const records = [inboundCall(A, '1'), inboundCall(A, '2', { from_number: '+19995550000' }), inboundCall(A, '3', { from_number: '+19995550001' })];
    await target.sink.write({ businessId: A, table: callsTable, records, deadLetters: [] }, { cursor: 'a' });
    const snapshot = () => ({
      calls: target.fake
        .calls()
        .map((call) => call.id)
        .sort(),
      contacts: target.fake.contacts().length,
      associations: target.fake.associations().length,
    });
    const before = snapshot();
    expect(before).toMatchObject({ contacts: 3, associations: 3 });

    const again = await target.reopen();
    expect(await again.write({ businessId: A, table: callsTable, records, deadLetters: [] }, { cursor: 'a' })).toEqual({
      written: 0,
      unchanged: 3,
      deadLettered: 0,
    });
    expect(snapshot()).toEqual(before);
  });

  it('creates a contact for an unknown caller when createContacts is on', async () => {
    target = await startTarget({}, { createContacts: true });
    await target.sink.write({ businessId: A, table: callsTable, records: [inboundCall(A, '1'), inboundCall(A, '2')], deadLetters: [] }, {});
    const contacts = target.fake.contacts();
    expect(contacts.map((contact) => contact.properties)).toEqual([{ phone: '+14155550123' }]);
    expect(target.fake.associations().map((association) => association.toId)).toEqual([contacts[0]?.id, contacts[0]?.id]);
    expect(searches(target)).toHaveLength(1);
  });
});
