import { describe, expect, it } from 'vitest';
import { CALL_STREAMS, callDescription, callDirection, callKey, callSubject, durationSeconds, fieldText, recordingLinks } from './call-mapping.js';

describe('CRM call mapping', () => {
  it('writes calls, v2 calls and voicemails, nothing else', () => {
    expect([...CALL_STREAMS]).toEqual(['calls', 'v2_calls', 'voicemails']);
  });

  it.each([
    ['voicemails', { direction: 'outbound' }, 'inbound'],
    ['calls', { direction: 'inbound' }, 'inbound'],
    ['v2_calls', { direction: 'outbound' }, 'outbound'],
    ['calls', { direction: 'Inbound' }, null],
    ['calls', { direction: null }, null],
    ['calls', {}, null],
  ] as const)('reads the direction of a %s record %j as %s', (stream, fields, direction) => {
    expect(callDirection(stream, fields)).toBe(direction);
  });

  it.each([
    [12.5, 12.5],
    ['42', 42],
    [' 7.4 ', 7.4],
    [0, 0],
    [-3, null],
    ['1e3', null],
    ['x', null],
    [Number.POSITIVE_INFINITY, null],
    [null, null],
    [undefined, null],
  ] as const)('reads duration %j as %j seconds', (value, seconds) => {
    expect(durationSeconds(value)).toBe(seconds);
  });

  it('names the other party in the subject, else the side the direction points at', () => {
    expect(callSubject('voicemails', 'inbound', '+14155550123', '+1999', '+1888', 'with')).toBe('Voicemail from +14155550123');
    expect(callSubject('voicemails', 'inbound', null, null, '+1888', 'with')).toBe('Voicemail');
    expect(callSubject('calls', 'outbound', null, '+1999', '+1888', 'from')).toBe('Outbound call to +1888');
    expect(callSubject('calls', 'inbound', null, '+1999', '+1888', 'from')).toBe('Inbound call from +1999');
    expect(callSubject('calls', 'outbound', null, '+1999', null, 'from')).toBe('Outbound call');
    expect(callSubject('calls', null, null, '+1999', '+1888', 'from')).toBe('Call from +1999');
    expect(callSubject('calls', null, '+1777', '+1999', '+1888', 'with')).toBe('Call with +1777');
    expect(callSubject('calls', null, null, null, '+1888', 'with')).toBe('Call');
  });

  it('labels summary and transcription in the description', () => {
    expect(callDescription('s', 't')).toBe('Summary: s\n\nTranscription: t');
    expect(callDescription('s', null)).toBe('Summary: s');
    expect(callDescription(null, 't')).toBe('Transcription: t');
    expect(callDescription(null, null)).toBeNull();
  });

  it('keys an activity by business, stream and id, and reads blank fields as absent', () => {
    expect(callKey('acme', 'calls', '42')).toBe('acme:calls:42');
    expect(fieldText('  x ')).toBe('x');
    expect(fieldText(12)).toBe('12');
    expect(fieldText('  ')).toBeNull();
    expect(fieldText(null)).toBeNull();
  });

  it.each([
    ['calls', { recording_url: 'https://up/1.wav', api_recording_url: 'https://api/1' }, 'https://cdn/a.wav', ['https://cdn/a.wav', 'https://up/1.wav']],
    ['calls', { recording_url: 'https://up/1.wav' }, null, ['https://up/1.wav']],
    ['voicemails', { recording_url: ' ', api_recording_url: 'https://api/1' }, null, ['https://api/1']],
    [
      'voicemails',
      { recording_url: 'https://up/1.wav', api_recording_url: 'https://api/1' },
      'https://cdn/a.wav',
      ['https://cdn/a.wav', 'https://up/1.wav', 'https://api/1'],
    ],
    ['calls', {}, null, []],
  ] as const)('orders the recording links of a %s record %j (archived %j) best first', (stream, fields, archived, links) => {
    expect(recordingLinks(stream, fields, archived)).toEqual(links);
  });
});
