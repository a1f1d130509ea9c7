import { describe, expect, it } from 'vitest';
import type { ColumnValue, SyncRecord } from '../../src/sink/sink.js';
import { mapRecordToTask, type TaskMappingOptions } from './mapping.js';

const options: TaskMappingOptions = {
  externalIdField: 'Callsync_Id__c',
  status: 'Completed',
  recordingUrlField: 'Recording_URL__c',
  recordField: null,
  deletedField: null,
  fields: {},
};

function record(fields: Record<string, ColumnValue>, id = 'c1'): SyncRecord {
  return { businessId: 'acme', id, source: 'v1', fields, raw: { id, ...fields } };
}

const inbound = {
  from_number: '+14155550123',
  to_number: '+15550100001',
  direction: 'inbound',
  created_at: '2024-03-01T23:30:00Z',
  duration_seconds: 73.4,
  status: 'no-answer',
  transcription_text: 'hello',
  recording_url: 'https://r.example/1.wav',
};

describe('mapRecordToTask', () => {
  it('writes a call as a Task of subtype Call, keyed by business, stream and id', () => {
    expect(mapRecordToTask(record(inbound), 'calls', options)).toEqual({
      ok: true,
      externalId: 'acme:calls:c1',
      fields: {
        TaskSubtype: 'Call',
        Subject: 'Inbound call from +14155550123',
        Status: 'Completed',
        ActivityDate: '2024-03-01',
        CallObject: 'c1',
        CallType: 'Inbound',
        CallDurationInSeconds: 73,
        CallDisposition: 'No answer',
        Description: 'Transcription: hello',
        Recording_URL__c: 'https://r.example/1.wav',
        Callsync_Id__c: 'acme:calls:c1',
      },
    });
  });

  it.each([
    ['outbound', { ...inbound, direction: 'outbound' }, 'calls', { CallType: 'Outbound', Subject: 'Outbound call to +15550100001' }],
    ['unknown direction', { ...inbound, direction: null }, 'calls', { Subject: 'Call with +14155550123' }],
    [
      'voicemail',
      { ...inbound, direction: null, status: null, transcription_summary: 'call back', api_recording_url: 'https://t.example/v', recording_url: null },
      'voicemails',
      {
        CallType: 'Inbound',
        CallDisposition: 'Left voicemail',
        Subject: 'Voicemail from +14155550123',
        Description: 'Summary: call back\n\nTranscription: hello',
        Recording_URL__c: 'https://t.example/v',
      },
    ],
    ['an unknown status kept as sent', { ...inbound, status: 'voicemail-drop' }, 'calls', { CallDisposition: 'voicemail-drop' }],
  ])('%s', (_name, fields, stream, expected) => {
    const mapped = mapRecordToTask(record(fields), stream, options);
    expect(mapped.ok && mapped.fields).toMatchObject(expected);
    if (fields.direction === null && stream === 'calls') expect(mapped.ok && 'CallType' in mapped.fields).toBe(false);
  });

  // The upstream may carry the business's own number in to_number of an outbound call; the
  // Subject names whom the shared other-party rule found, as the WhoId does.
  it.each([
    ['outbound, to_number the tracked number', { ...inbound, direction: 'outbound' }, 'calls', 'Outbound call to +14155550123'],
    [
      'outbound, to_number the customer',
      { ...inbound, direction: 'outbound', from_number: '+15550100001', to_number: '+14155550123' },
      'calls',
      'Outbound call to +14155550123',
    ],
    ['inbound', inbound, 'calls', 'Inbound call from +14155550123'],
    ['unknown direction', { ...inbound, direction: null, from_number: '+15550100001', to_number: '+14155550123' }, 'calls', 'Call with +14155550123'],
    ['voicemail', { ...inbound, direction: null }, 'voicemails', 'Voicemail from +14155550123'],
  ])('names the customer in the Subject: %s', (_name, fields, stream, subject) => {
    const mapped = mapRecordToTask(record(fields), stream, options, '+14155550123');
    expect(mapped.ok && mapped.fields.Subject).toBe(subject);
  });

  it.each([
    [{ ...inbound, created_at: null }, 'salesforce: created_at is missing; a Task needs its ActivityDate'],
    [{ ...inbound, created_at: 'not a date' }, 'salesforce: created_at "not a date" is not a date; a Task needs its ActivityDate'],
  ])('refuses a record without a usable created_at (%j)', (fields, reason) => {
    expect(mapRecordToTask(record(fields), 'calls', options)).toEqual({ ok: false, reason });
  });

  it('writes declared columns through mapping.fields, the record copy when it fits, and unmarks a deleted Task', () => {
    const mapped = mapRecordToTask(record({ ...inbound, lead_source: 'ppc' }), 'calls', {
      ...options,
      fields: { lead_source: 'Lead_Source__c' },
      recordField: 'Callsync_Record__c',
      deletedField: 'Callsync_Deleted__c',
    });
    expect(mapped.ok && mapped.fields).toMatchObject({ Lead_Source__c: 'ppc', Callsync_Deleted__c: false });
    expect(JSON.parse(String(mapped.ok && mapped.fields.Callsync_Record__c))).toMatchObject({ source: 'v1', fields: { lead_source: 'ppc' } });
    const huge = mapRecordToTask(record({ ...inbound, transcription_text: 'x'.repeat(200_000) }), 'calls', { ...options, recordField: 'Callsync_Record__c' });
    expect(huge.ok && 'Callsync_Record__c' in huge.fields).toBe(false);
    expect(huge.ok && String(huge.fields.Description).length).toBe(32_000);
  });

  it('writes the archived recording link instead of upstream’s when given', () => {
    const archived = mapRecordToTask(record(inbound), 'calls', options, null, 'https://cdn.example.com/acme/calls/2024/03/c1.wav');
    expect(archived.ok && archived.fields.Recording_URL__c).toBe('https://cdn.example.com/acme/calls/2024/03/c1.wav');
    const upstream = mapRecordToTask(record(inbound), 'calls', options);
    expect(upstream.ok && upstream.fields.Recording_URL__c).toBe('https://r.example/1.wav');
  });
});
