import { describe, expect, it } from 'vitest';
import type { ColumnValue, Json, SyncRecord } from '../../src/sink/sink.js';
import { CALL_STATUS, defaultCallMapping, hubspotCallStatus, LEFT_VOICEMAIL_DISPOSITION, mapRecordToCall, resolveMapping } from './mapping.js';

const call = (fields: Record<string, ColumnValue>, raw: Json = {}): SyncRecord => ({
  businessId: 'acme',
  id: '42',
  source: 'v1',
  fields: { created_at: '2024-03-01T10:15:00Z', ...fields },
  raw,
});

describe('mapRecordToCall', () => {
  it.each([
    [
      'inbound call',
      'calls',
      call({ direction: 'inbound', from_number: '+14155550123', to_number: '+15550100001' }),
      {
        hs_call_direction: 'INBOUND',
        hs_call_title: 'Inbound call from +14155550123',
        hs_call_from_number: '+14155550123',
        hs_call_to_number: '+15550100001',
      },
    ],
    [
      'outbound call',
      'calls',
      call({ direction: 'outbound', to_number: '+15550100001' }),
      { hs_call_direction: 'OUTBOUND', hs_call_title: 'Outbound call to +15550100001' },
    ],
    ['call without direction', 'v2_calls', call({ direction: null, from_number: '+1415' }), { hs_call_title: 'Call from +1415' }],
    ['v1 raw duration_seconds', 'calls', call({}, { duration_seconds: 61 }), { hs_call_duration: '61000' }],
    ['v1 duration as digit string', 'calls', call({}, { duration_seconds: '7' }), { hs_call_duration: '7000' }],
    ['non-https recording omitted', 'calls', call({ recording_url: 'http://x.example/r.wav' }), {}],
    ['https recording kept', 'calls', call({ recording_url: 'https://x.example/r.wav' }), { hs_call_recording_url: 'https://x.example/r.wav' }],
    ['transcription in body', 'calls', call({ transcription_text: 'hi' }), { hs_call_body: 'Transcription: hi' }],
    [
      'voicemail',
      'voicemails',
      call({
        from_number: '+1415',
        duration_seconds: 42,
        transcription_summary: 's',
        transcription_text: 't',
        recording_url: 'http://a/b',
        api_recording_url: 'https://c/d',
      }),
      {
        hs_call_direction: 'INBOUND',
        hs_call_duration: '42000',
        hs_call_disposition: LEFT_VOICEMAIL_DISPOSITION,
        hs_call_title: 'Voicemail from +1415',
        hs_call_body: 'Summary: s\n\nTranscription: t',
        hs_call_recording_url: 'https://c/d',
      },
    ],
  ])('%s', (_name, stream, record, expected) => {
    const mapped = mapRecordToCall(record, stream, 'callsync_id', defaultCallMapping);
    expect(mapped.ok).toBe(true);
    if (!mapped.ok) return;
    expect(mapped.uniqueValue).toBe(`acme:${stream}:42`);
    expect(mapped.properties).toMatchObject({ hs_timestamp: '2024-03-01T10:15:00Z', callsync_id: `acme:${stream}:42`, ...expected });
    expect(mapped.properties).not.toHaveProperty('hs_call_status');
    if (!('hs_call_recording_url' in expected)) expect(mapped.properties).not.toHaveProperty('hs_call_recording_url');
    if (stream !== 'voicemails') expect(mapped.properties).not.toHaveProperty('hs_call_disposition');
  });

  it('sends the archived recording link instead of upstream’s, unless it is not https (HubSpot plays https only)', () => {
    const record = call({ recording_url: 'https://upstream.example/r.wav' });
    const archived = mapRecordToCall(record, 'calls', 'u', defaultCallMapping, undefined, 'https://cdn.example.com/acme/calls/2024/03/42.wav');
    expect(archived.ok && archived.properties.hs_call_recording_url).toBe('https://cdn.example.com/acme/calls/2024/03/42.wav');
    const plain = mapRecordToCall(record, 'calls', 'u', defaultCallMapping, undefined, 'http://cdn.example.com/acme/calls/2024/03/42.wav');
    expect(plain.ok && plain.properties.hs_call_recording_url).toBe('https://upstream.example/r.wav');
    const none = mapRecordToCall(record, 'calls', 'u', defaultCallMapping);
    expect(none.ok && none.properties.hs_call_recording_url).toBe('https://upstream.example/r.wav');
  });

  it.each([
    ['completed', 'COMPLETED'],
    ['busy', 'BUSY'],
    ['no-answer', 'NO_ANSWER'],
    ['missed', 'NO_ANSWER'],
    ['failed', 'FAILED'],
    ['canceled', 'CANCELED'],
    ['cancelled', 'CANCELED'],
    [' Busy ', 'BUSY'],
    ['voicemail', null],
    ['constructor', null],
    ['', null],
  ])('hs_call_status for upstream status %j is %j', (status, expected) => {
    expect(hubspotCallStatus(status)).toBe(expected);
    const v1 = mapRecordToCall(call({}, { status }), 'calls', 'u', defaultCallMapping);
    const v2 = mapRecordToCall(call({}, { call_status: status }), 'v2_calls', 'u', defaultCallMapping);
    const normalized = mapRecordToCall(call({ status }, { status: 'completed' }), 'calls', 'u', defaultCallMapping);
    for (const mapped of [v1, v2, ...(status === '' ? [] : [normalized])]) expect(mapped.ok && mapped.properties.hs_call_status).toBe(expected ?? undefined);
  });

  it("maps only to values in HubSpot's hs_call_status enumeration", () => {
    const enumeration = ['BUSY', 'CALLING_CRM_USER', 'CANCELED', 'COMPLETED', 'CONNECTING', 'FAILED', 'IN_PROGRESS', 'NO_ANSWER', 'QUEUED', 'RINGING'];
    for (const value of CALL_STATUS.values()) expect(enumeration).toContain(value);
  });

  it('without tracked numbers the direction decides the other party: caller inbound, callee outbound', () => {
    const inbound = mapRecordToCall(call({ direction: 'inbound', from_number: '+14155550101', to_number: '+14155550102' }), 'calls', 'u', defaultCallMapping);
    const outbound = mapRecordToCall(call({ direction: 'outbound', from_number: '+14155550101', to_number: '+14155550102' }), 'calls', 'u', defaultCallMapping);
    expect([inbound.ok && inbound.contactNumber, outbound.ok && outbound.contactNumber]).toEqual(['+14155550101', '+14155550102']);
    expect([inbound.ok && inbound.partyBasis, outbound.ok && outbound.partyBasis]).toEqual(['direction', 'direction']);
  });

  it.each([
    ['outbound, to = tracked', 'outbound', '+12125550199', '+14155550100'],
    ['outbound, from = tracked', 'outbound', '+14155550100', '+12125550199'],
    ['inbound, to = tracked', 'inbound', '+12125550199', '+14155550100'],
  ])('with tracked numbers the customer is the untracked number (%s)', (_name, direction, from, to) => {
    const mapped = mapRecordToCall(
      call({ direction, from_number: from, to_number: to }),
      'calls',
      'u',
      defaultCallMapping,
      (number) => number === '+14155550100',
    );
    expect(mapped.ok && [mapped.contactNumber, mapped.partyBasis]).toEqual(['+12125550199', 'tracked']);
  });

  it.each([
    ['numbers', call({}), /stream "numbers" is not synced/],
    ['calls', call({ created_at: null }), /created_at is missing/],
  ])('rejects %s with a reason', (stream, record, reason) => {
    const mapped = mapRecordToCall(record, stream, 'u', defaultCallMapping);
    expect(mapped.ok ? 'ok' : mapped.reason).toMatch(reason);
  });

  it('applies overrides: renamed and dropped properties', () => {
    const mapping = resolveMapping({ title: null, fromNumber: 'caller_phone', voicemailDisposition: 'custom-guid' });
    const mapped = mapRecordToCall(call({ from_number: '+1' }), 'voicemails', 'u', mapping);
    expect(mapped.ok && mapped.properties).toMatchObject({ caller_phone: '+1', hs_call_disposition: 'custom-guid' });
    expect(mapped.ok && mapped.properties).not.toHaveProperty('hs_call_title');
    expect(mapped.ok && mapped.properties).not.toHaveProperty('hs_call_from_number');
  });

  it('writes declared columns to the properties the config names, as text, leaving out nulls', () => {
    const mapping = resolveMapping({ fields: { lead_source: 'lead_source_c', score: 'lead_score_c', campaign: 'campaign_c' } });
    const mapped = mapRecordToCall(call({ lead_source: 'google', score: 7, campaign: null }), 'calls', 'u', mapping);
    expect(mapped.ok && mapped.properties).toMatchObject({ lead_source_c: 'google', lead_score_c: '7' });
    expect(mapped.ok && mapped.properties).not.toHaveProperty('campaign_c');
  });
});
