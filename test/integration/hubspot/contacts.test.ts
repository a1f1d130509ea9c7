import { afterEach, describe, expect, it } from 'vitest';
import { callsTable, voicemailsTable } from '../sink-conformance/fixtures.js';
import { inboundCall, startTarget, voicemail, type HubSpotTarget } from './harness.js';

const A = 'acme';
const searches = (target: HubSpotTarget) => target.fake.requests().filter((request) => request.path === '/crm/v3/objects/contacts/search');

describe('hubspot call ↔ contact association', () => {
  let target: HubSpotTarget;
  afterEach(async () => target.close());

  it('associates by phone or mobile phone and searches once per number', async () => {
    target = await startTarget({ contacts: [{ firstname: 'Ann', phone: '+14155550123' }, { firstname: 'Bo', mobilephone: '+14155550199' }] });
    const [ann, bo] = target.fake.contacts();
    const calls = [inboundCall(A, '1'), inboundCall(A, '2'), inboundCall(A, '3', { direction: 'outbound', to_number: '+14155550199' })];
    await target.sink.write({ businessId: A, table: callsTable, records: calls, deadLetters: [] }, {});
    await target.sink.write({ businessId: A, table: callsTable, records: [inboundCall(A, '4')], deadLetters: [] }, {});
    await target.sink.write({ businessId: A, table: voicemailsTable, records: [voicemail(A, '5', { from_number: '+19995550000' })], deadLetters: [] }, {});

    const idOf = new Map(target.fake.calls().map((call) => [call.properties.callsync_id, call.id]));
    const pairs = target.fake.associations().map((association) => [association.fromId, association.toId, association.associationTypeId]);
    expect(pairs).toEqual(
      expect.arrayContaining([
        [idOf.get('acme:calls:1'), ann?.id, 194],
        [idOf.get('acme:calls:2'), ann?.id, 194],
        [idOf.get('acme:calls:3'), bo?.id, 194],
        [idOf.get('acme:calls:4'), ann?.id, 194],
      ]),
    );
    expect(pairs).toHaveLength(4);
    const numbers = searches(target).map((request) => (request.body as { filterGroups: { filters: { value: string }[] }[] }).filterGroups[0]?.filters[0]?.value);
    expect(numbers.sort()).toEqual(['+14155550123', '+14155550199', '+19995550000']);
    expect(searches(target)[0]?.body).toMatchObject({
      filterGroups: [
        { filters: [{ propertyName: 'phone', operator: 'EQ', value: expect.any(String) as unknown }] },
        { filters: [{ propertyName: 'mobilephone', operator: 'EQ', value: expect.any(String) as unknown }] },
      ],
    });
    expect(target.fake.contacts()).toHaveLength(2);
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
