import { describe, expect, it } from 'vitest';
import type { Json } from '../base/json.js';
import { normalizeV1Call, normalizeV1Generic, normalizeV1Number, normalizeV2Call, normalizeV2Voicemail } from './index.js';
import type { NormalizeContext } from './records.js';

const context: NormalizeContext = { recordingsBaseUrl: 'https://calls.example.com/', v2TimeZone: 'UTC' };

const voicemail = {
  uuid: 90210,
  voicemail_to_number: '+14155550100',
  voicemail_from_number: '+14155550199',
  voicemail_transcription_text: 'Call me back',
  voicemail_transcription_summary: null,
  voicemail_recording_type: 'voicemail',
  voicemail_recording_url: '/u7/recordings/ivr3/r55.wav',
  voicemail_api_recording_url: 'https://api.provider.example/Recordings/RE55',
  voicemail_duration: '00:01:05',
  voicemail_created_at: '2024-03-05 14:07:09',
};

const v2Call = {
  uuid: 7,
  call_to_number: '+14155550100',
  call_from_number: 14155550199,
  call_transcription_text: '',
  call_direction: 'inbound',
  call_recording_url: '/u7/recordings/f/c7.wav',
  call_created_at: '2024-03-05 14:07:09',
};

/** A v1 call's fields when its record gives none of them; a test spreads it and names what its record gives. */
const noCallFields = {
  to_number: null,
  from_number: null,
  direction: null,
  recording_url: null,
  transcription_text: null,
  created_at: null,
  duration_seconds: null,
  status: null,
  updated_at: null,
  tracking_number_id: null,
};

const v1Call = {
  id: '5d1f0a9e-0000-4000-8000-000000000001',
  to_number: '+14155550100',
  from_number: '+14155550199',
  direction: 'outbound',
  status: 'completed',
  duration_seconds: 30,
  recording_url: 'https://calls.example.com/rec/1.wav',
  transcription_text: 'hello',
  created_at: '2024-03-05T14:07:09Z',
  updated_at: '2024-03-05T14:09:09Z',
  tracking_number_id: 'tn-1',
};

describe('normalizeV2Voicemail', () => {
  it('maps every v2 quirk to v1 form', () => {
    expect(normalizeV2Voicemail(voicemail, context)).toEqual({
      ok: true,
      id: '90210',
      fields: {
        to_number: '+14155550100',
        from_number: '+14155550199',
        transcription_text: 'Call me back',
        transcription_summary: null,
        recording_type: 'voicemail',
        recording_url: 'https://calls.example.com/u7/recordings/ivr3/r55.wav',
        api_recording_url: 'https://api.provider.example/Recordings/RE55',
        duration_seconds: 65,
        created_at: '2024-03-05T14:07:09Z',
      },
    });
  });

  it.each<[string, Record<string, Json | undefined>, string, Json]>([
    ['numeric uuid', { uuid: 12 }, 'id', '12'],
    ['string uuid', { uuid: 'abc-1' }, 'id', 'abc-1'],
    ['phone as number', { voicemail_from_number: 14155550199 }, 'from_number', '+14155550199'],
    ['phone as digit string', { voicemail_to_number: '14155550100' }, 'to_number', '+14155550100'],
    ['MM:SS duration', { voicemail_duration: '02:30' }, 'duration_seconds', 150],
    ['integer duration', { voicemail_duration: 12 }, 'duration_seconds', 12],
    ['missing duration', { voicemail_duration: undefined }, 'duration_seconds', null],
    ['empty transcription', { voicemail_transcription_text: '' }, 'transcription_text', null],
    ['absolute recording url', { voicemail_recording_url: 'https://cdn.example/r.wav' }, 'recording_url', 'https://cdn.example/r.wav'],
    ['null recording url', { voicemail_recording_url: null }, 'recording_url', null],
    ['unknown extra field', { voicemail_new_thing: { nested: [1] } }, 'to_number', '+14155550100'],
  ])('%s', (_name, patch, column, expected) => {
    const result = normalizeV2Voicemail({ ...voicemail, ...patch }, context);
    if (!result.ok) throw new Error(result.reason);
    expect(column === 'id' ? result.id : result.fields[column]).toEqual(expected);
  });

  it('reads created_at in the business zone', () => {
    const result = normalizeV2Voicemail(voicemail, { ...context, v2TimeZone: 'America/Los_Angeles' });
    expect(result.ok && result.fields.created_at).toBe('2024-03-05T22:07:09Z');
  });

  it.each<[Record<string, Json | undefined>, string]>([
    [{ uuid: undefined }, 'uuid: missing'],
    [{ uuid: 1.5 }, 'uuid: not a safe integer id: 1.5'],
    [{ uuid: {} }, 'uuid: expected a string or integer id, got an object'],
    [{ voicemail_created_at: '2024-13-01 10:00:00' }, 'voicemail_created_at: unparseable "2024-13-01 10:00:00"'],
    [{ voicemail_created_at: '2024-02-30 10:00:00' }, 'voicemail_created_at: unparseable "2024-02-30 10:00:00"'],
    [{ voicemail_created_at: undefined }, 'voicemail_created_at: missing'],
    [{ voicemail_created_at: '' }, 'voicemail_created_at: missing'],
    [{ voicemail_duration: -3 }, 'voicemail_duration: negative duration -3'],
    [{ voicemail_duration: '1 minute' }, 'voicemail_duration: unparseable duration "1 minute"'],
    [{ voicemail_from_number: 'unknown' }, 'voicemail_from_number: not an E.164 number: "unknown"'],
    [{ voicemail_to_number: ['+14155550100'] }, 'voicemail_to_number: expected a phone number, got an array'],
    [{ voicemail_recording_url: 'rec.wav' }, 'voicemail_recording_url: not an absolute URL or /path: "rec.wav"'],
    [{ voicemail_transcription_text: 'x'.repeat(1024 * 1024 + 1) }, 'voicemail_transcription_text: longer than 1048576 bytes'],
  ])('%j fails with %s', (patch, reason) => {
    expect(normalizeV2Voicemail({ ...voicemail, ...patch }, context)).toEqual({ ok: false, reason });
  });

  it.each<[Json, string]>([
    [null, 'record: expected an object, got null'],
    [[voicemail], 'record: expected an object, got an array'],
    ['x', 'record: expected an object, got a string'],
  ])('rejects a non-object record %j', (raw, reason) => {
    expect(normalizeV2Voicemail(raw, context)).toEqual({ ok: false, reason });
  });
});

describe('normalizeV2Call', () => {
  it('drops the call_ prefix and fixes the v2 shapes', () => {
    expect(normalizeV2Call(v2Call, context)).toEqual({
      ok: true,
      id: '7',
      fields: {
        ...noCallFields,
        to_number: '+14155550100',
        from_number: '+14155550199',
        direction: 'inbound',
        recording_url: 'https://calls.example.com/u7/recordings/f/c7.wav',
        transcription_text: null,
        created_at: '2024-03-05T14:07:09Z',
      },
    });
  });

  it('reads duration, status, update time and tracking number when a v2 call carries them', () => {
    const detailed = { ...v2Call, call_duration: '00:02:05', call_status: 'completed', call_updated_at: '2024-03-05 14:09:09', call_tracking_number_id: 12 };
    const result = normalizeV2Call(detailed, context);
    expect(result.ok && result.fields).toMatchObject({
      duration_seconds: 125,
      status: 'completed',
      updated_at: '2024-03-05T14:09:09Z',
      tracking_number_id: '12',
    });
  });

  it.each<[Record<string, Json | undefined>, string]>([
    [{ call_direction: { dir: 'in' } }, 'call_direction: expected a string, got an object'],
    [{ call_created_at: '2024-01-01 25:00:00' }, 'call_created_at: unparseable "2024-01-01 25:00:00"'],
    [{ uuid: '' }, 'uuid: empty'],
  ])('%j fails with %s', (patch, reason) => {
    expect(normalizeV2Call({ ...v2Call, ...patch }, context)).toEqual({ ok: false, reason });
  });

  it('maps an unknown direction to null', () => {
    const result = normalizeV2Call({ ...v2Call, call_direction: 'Transfer' }, context);
    expect(result.ok && result.fields.direction).toBeNull();
  });
});

describe('normalizeV1Call', () => {
  it('maps the simulator shape and ignores extra fields', () => {
    expect(normalizeV1Call(v1Call, context)).toEqual({
      ok: true,
      id: v1Call.id,
      fields: {
        to_number: '+14155550100',
        from_number: '+14155550199',
        direction: 'outbound',
        recording_url: 'https://calls.example.com/rec/1.wav',
        transcription_text: 'hello',
        created_at: '2024-03-05T14:07:09Z',
        duration_seconds: 30,
        status: 'completed',
        updated_at: '2024-03-05T14:09:09Z',
        tracking_number_id: 'tn-1',
      },
    });
  });

  it('maps recognisable aliases', () => {
    const aliased = {
      call_id: 'c-1',
      to: '+14155550100',
      caller_number: '(415) 555-0199',
      call_direction: 'INBOUND',
      transcript: 'hi',
      started_at: '2024-03-05T16:07:09+02:00',
      call_duration: '01:05',
      call_status: 'no-answer',
      modified_at: '2024-03-05T16:08:09+02:00',
      tracking_id: 42,
    };
    expect(normalizeV1Call(aliased, context)).toEqual({
      ok: true,
      id: 'c-1',
      fields: {
        to_number: '+14155550100',
        from_number: '+14155550199',
        direction: 'inbound',
        recording_url: null,
        transcription_text: 'hi',
        created_at: '2024-03-05T14:07:09Z',
        duration_seconds: 65,
        status: 'no-answer',
        updated_at: '2024-03-05T14:08:09Z',
        tracking_number_id: '42',
      },
    });
  });

  it('ignores an alias that holds a structure, but validates the canonical name', () => {
    const withStructures = { ...v1Call, transcription: { text: 'x', confidence: 0.9 }, transcription_text: null, from: { name: 'Ann' } };
    const result = normalizeV1Call(withStructures, context);
    expect(result.ok && result.fields).toMatchObject({ transcription_text: null, from_number: '+14155550199' });
    expect(normalizeV1Call({ ...v1Call, to_number: { e164: '+1' } }, context)).toEqual({
      ok: false,
      reason: 'to_number: expected a phone number, got an object',
    });
  });

  it('stores null for missing optional fields', () => {
    const result = normalizeV1Call({ id: 'x', created_at: '2024-03-05T14:07:09Z' }, context);
    expect(result).toEqual({ ok: true, id: 'x', fields: { ...noCallFields, created_at: '2024-03-05T14:07:09Z' } });
  });

  it.each<[Record<string, Json | undefined>, string]>([
    [{ id: undefined }, 'id: missing'],
    [{ created_at: 'not a date' }, 'created_at: unparseable "not a date"'],
    [{ created_at: undefined }, 'created_at: missing'],
    [{ from_number: '+1' }, 'from_number: not an E.164 number: "+1"'],
    [{ direction: 5 }, 'direction: expected a string, got a number'],
    [{ duration_seconds: -4 }, 'duration_seconds: negative duration -4'],
    [{ updated_at: 'yesterday' }, 'updated_at: unparseable "yesterday"'],
    [{ tracking_number_id: { id: 1 } }, 'tracking_number_id: expected a string or integer id, got an object'],
    // A reason names the alias the value came from.
    [{ duration_seconds: undefined, call_duration: 'long' }, 'call_duration: unparseable duration "long"'],
    [{ created_at: null, started_at: undefined, start_time: 'noon' }, 'start_time: unparseable "noon"'],
  ])('%j fails with %s', (patch, reason) => {
    expect(normalizeV1Call({ ...v1Call, ...patch }, context)).toEqual({ ok: false, reason });
  });
});

describe('normalizeV1Number', () => {
  it.each<[Json, string, string | null]>([
    [{ id: 'n1', number: '+14155550100', friendly_name: 'Main' }, 'n1', '+14155550100'],
    [{ id: 'n2', phone_number: '+14155550101' }, 'n2', '+14155550101'],
    [{ id: 'n3' }, 'n3', null],
  ])('%j', (raw, id, number) => {
    expect(normalizeV1Number(raw, context)).toEqual({ ok: true, id, fields: { number } });
  });

  it('fails on a number that cannot be made E.164', () => {
    expect(normalizeV1Number({ id: 'n1', number: 'main line' }, context)).toEqual({ ok: false, reason: 'number: not an E.164 number: "main line"' });
  });
});

describe('normalizeV1Generic', () => {
  it('reads the configured id and created_at fields', () => {
    const normalize = normalizeV1Generic('message_id', 'sent_at');
    expect(normalize({ message_id: 44, sent_at: '2024-03-05T14:07:09.5Z', body: 'hi' }, context)).toEqual({
      ok: true,
      id: '44',
      fields: { created_at: '2024-03-05T14:07:09Z' },
    });
    expect(normalize({ message_id: 44 }, context)).toEqual({ ok: true, id: '44', fields: { created_at: null } });
    expect(normalize({ message_id: 44, sent_at: 'soon' }, context)).toEqual({ ok: false, reason: 'sent_at: unparseable "soon"' });
    expect(normalize({ id: 44 }, context)).toEqual({ ok: false, reason: 'message_id: missing' });
  });

  it("reads only the record's own fields, whatever they are named", () => {
    const normalize = normalizeV1Generic('toString', 'constructor');
    expect(normalize({ id: 'x' }, context)).toEqual({ ok: false, reason: 'toString: missing' });
    expect(normalize({ toString: 'x' }, context)).toEqual({ ok: true, id: 'x', fields: { created_at: null } });
    expect(normalize({ toString: 'x', constructor: 'soon' }, context)).toEqual({ ok: false, reason: 'constructor: unparseable "soon"' });
  });

  it('stores a null created_at without createdAtField', () => {
    expect(normalizeV1Generic('id')({ id: 'f1', created_at: 'garbage' }, context)).toEqual({ ok: true, id: 'f1', fields: { created_at: null } });
  });
});
