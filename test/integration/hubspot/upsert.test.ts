import { afterEach, describe, expect, it } from 'vitest';
import { LEFT_VOICEMAIL_DISPOSITION } from '../../../connectors/hubspot/mapping.js';
import type { StreamTable } from '../../../src/sink/sink.js';
import { chunks } from '../../../src/base/chunks.js';
import { callsTable, voicemailsTable } from '../sink-conformance/fixtures.js';
import { inboundCall, startTarget, voicemail, type HubSpotTarget } from './harness.js';

const A = 'acme';
const numbersTable: StreamTable = { stream: 'numbers', table: 'numbers', columns: [{ name: 'number', type: 'text' }] };

describe('hubspot sink against the fake portal', () => {
  let target: HubSpotTarget;
  afterEach(async () => target.close());

  it('creates the unique property once and upserts calls without duplicates on replay', async () => {
    target = await startTarget({}, { associateContacts: false });
    await target.sink.prepare([callsTable]);
    await target.sink.prepare([callsTable, voicemailsTable]);
    const records = Array.from({ length: 150 }, (_, index) => inboundCall(A, `c${index}`));
    for (const part of chunks(records, target.sink.capabilities.maxBatchSize)) {
      await target.sink.write({ businessId: A, table: callsTable, records: part, deadLetters: [] }, { cursor: 'p1' });
    }
    const upserts = () => target.fake.requests().filter((request) => request.path === '/crm/v3/objects/calls/batch/upsert');
    expect(upserts().map((request) => (request.body as { inputs: unknown[] }).inputs.length)).toEqual([100, 50]);
    expect(target.fake.calls()).toHaveLength(150);

    const replay = await target.sink.write({ businessId: A, table: callsTable, records: records.slice(0, 100), deadLetters: [] }, { cursor: 'p2' });
    expect(replay).toEqual({ written: 0, unchanged: 100, deadLettered: 0 });
    expect(target.fake.calls()).toHaveLength(150);
    const propertyCreations = target.fake.requests().filter((request) => request.method === 'POST' && request.path === '/crm/v3/properties/calls');
    expect(propertyCreations).toHaveLength(1);
    expect(target.fake.callProperties().find((property) => property.name === 'callsync_id')).toMatchObject({
      hasUniqueValue: true,
      type: 'string',
      fieldType: 'text',
      groupName: 'callinformation',
    });
    expect(await target.sink.checkpoints.load(A, 'calls')).toMatchObject({ position: { cursor: 'p2' }, recordsSynced: 150 });
  });

  it('writes calls and voicemails with the documented properties', async () => {
    target = await startTarget({}, { associateContacts: false });
    const call = inboundCall(A, '7', { duration_seconds: null });
    await target.sink.write(
      { businessId: A, table: callsTable, records: [{ ...call, raw: { ...(call.raw as object), status: 'busy' } }], deadLetters: [] },
      {},
    );
    await target.sink.write({ businessId: A, table: voicemailsTable, records: [voicemail(A, '9')], deadLetters: [] }, {});
    const byId = new Map(target.fake.calls().map((call) => [call.properties.callsync_id, call.properties]));
    expect(byId.get('acme:calls:7')).toEqual({
      callsync_id: 'acme:calls:7',
      hs_timestamp: '2024-03-01T10:15:00Z',
      hs_call_direction: 'INBOUND',
      hs_call_from_number: '+14155550123',
      hs_call_to_number: '+15550100001',
      hs_call_recording_url: 'https://calls.example.com/acct/recordings/main/7.wav',
      hs_call_body: 'Transcription: hello from 7',
      hs_call_title: 'Inbound call from +14155550123',
      hs_call_status: 'BUSY',
    });
    expect(byId.get('acme:voicemails:9')).toMatchObject({
      hs_call_duration: '42000',
      hs_call_disposition: LEFT_VOICEMAIL_DISPOSITION,
      hs_call_title: 'Voicemail from +14155550199',
      hs_call_recording_url: 'https://telephony.example.net/rec/9',
      hs_call_body: 'Summary: wants a call back\n\nTranscription: please call back',
    });
  });

  it('keeps tracked numbers in the state store, never as dead letters, and they decide the customer of later calls', async () => {
    target = await startTarget({ contacts: [{ firstname: 'Bo', phone: '(415) 555-0142' }] }, { trackedNumbers: [] });
    const [bo] = target.fake.contacts();
    await target.sink.prepare([numbersTable, callsTable]);
    const record = { businessId: A, id: 'n1', source: 'v1' as const, fields: { number: '+12125550111' }, raw: { id: 'n1', number: '+12125550111' } };
    for (const run of [1, 2]) {
      const result = await target.sink.write({ businessId: A, table: numbersTable, records: [record], deadLetters: [] }, { run });
      expect(result).toEqual({ written: run === 1 ? 1 : 0, unchanged: run === 1 ? 0 : 1, deadLettered: 0 });
    }
    expect(await target.sink.deadLetters.list({ businessId: A })).toEqual([]);
    expect(target.fake.requests().some((request) => request.path.includes('batch/upsert'))).toBe(false);
    expect(await target.sink.checkpoints.load(A, 'numbers')).toMatchObject({ position: { run: 2 }, recordsSynced: 1 });
    expect(await target.sink.records.listIds(A, numbersTable)).toEqual(['n1']);
    // The spec's reading of an outbound call: to_number is the tracked number, the customer calls from from_number.
    const outbound = inboundCall(A, 'c1', { direction: 'outbound', to_number: '+12125550111', from_number: '+14155550142' });
    expect(await target.sink.write({ businessId: A, table: callsTable, records: [outbound], deadLetters: [] }, {})).toEqual({
      written: 1,
      unchanged: 0,
      deadLettered: 0,
    });
    expect(target.fake.associations().map((association) => association.toId)).toEqual([bo?.id]);
    expect(target.logs.join('')).not.toMatch(/not synced to HubSpot|become dead letters/);
  });
});
