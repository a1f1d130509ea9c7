import { describe, expect, it } from 'vitest';
import type { Json } from '../../sink/sink.js';
import { builtinStreams } from './builtin-streams.js';
import { customStream } from './custom-streams.js';

describe('a v2 stream reading created_at alone', () => {
  const zones = ['UTC', 'America/Los_Angeles', 'Asia/Kolkata', 'Europe/London'];
  // DST edges in Los Angeles and London included: the date read alone must be the one normalizing gives.
  const times = [
    '2024-03-05 14:07:09',
    '2024-03-10 02:30:00',
    '2024-11-03 01:30:00',
    '2024-03-31 01:30:00',
    '2024-03-05T14:07:09Z',
    '2024-03-05T14:07:09+05:30',
  ];
  const cases: readonly (readonly [string, string])[] = [
    ['voicemails', 'voicemail_created_at'],
    ['v2_calls', 'call_created_at'],
  ];

  it.each(cases)('%s: gives what normalizing the record gives', (name, field) => {
    const descriptor = builtinStreams.get(name);
    expect(descriptor).toBeDefined();
    for (const v2TimeZone of zones) {
      const context = { recordingsBaseUrl: 'https://calls.example.com', v2TimeZone };
      for (const at of times) {
        const raw: Json = { uuid: 7, [field]: at };
        const normalized = descriptor?.normalize(raw, context);
        expect(normalized?.ok && normalized.fields.created_at).toBe(descriptor?.keys.createdAt(raw, context));
        expect(normalized?.ok && normalized.id).toBe(descriptor?.keys.id(raw));
      }
    }
  });

  it.each(cases)('%s: reads nothing when the date is missing or not one', (name, field) => {
    const keys = builtinStreams.get(name)?.keys;
    const context = { recordingsBaseUrl: 'https://calls.example.com', v2TimeZone: 'UTC' };
    for (const raw of [{ uuid: 7 }, { uuid: 7, [field]: null }, { uuid: 7, [field]: '2024-13-01 10:00:00' }, { uuid: 7, [field]: 5 }, [], 'x'] as Json[]) {
      expect(keys?.createdAt(raw, context)).toBeUndefined();
    }
  });
});

describe('a v1 stream reading its keys alone (what a walk guards and orders by)', () => {
  const context = { recordingsBaseUrl: 'https://calls.example.com', v2TimeZone: 'UTC' };
  const sms = customStream({ name: 'sms', path: '/sms', recordsKey: 'sms', paging: 'cursor', idField: 'sms_id', createdAtField: 'sent_at' });
  const cases = [
    [
      'calls',
      builtinStreams.get('calls'),
      [
        { id: 'c1', created_at: '2024-03-05T14:07:09+02:00' },
        { uuid: 42, started_at: '2024-03-05T14:07:09Z' },
        { call_id: '7', call_created_at: '2024-03-05T14:07:09Z' },
      ],
    ],
    ['numbers', builtinStreams.get('numbers'), [{ id: 3, number: '+15550001111' }, { number_id: 'n9' }]],
    ['a declared stream', sms, [{ sms_id: 's1', sent_at: '2024-03-05T14:07:09.250Z' }, { sms_id: 5 }]],
  ] as const;

  it.each(cases)('%s: the id and created_at normalizing gives', (_name, descriptor, records) => {
    for (const raw of records as readonly Json[]) {
      const normalized = descriptor?.normalize(raw, context);
      expect(normalized?.ok).toBe(true);
      if (!normalized?.ok) continue;
      expect(descriptor?.keys.id(raw)).toBe(normalized.id);
      expect(descriptor?.keys.createdAt(raw, context)).toBe(normalized.fields.created_at ?? undefined);
    }
  });

  it('reads no id where normalizing finds none: absent, an inexact number, not an object', () => {
    const keys = builtinStreams.get('calls')?.keys;
    for (const raw of [{ created_at: '2024-03-05T14:07:09Z' }, { id: { $inexactNumber: '1.0000000000000001' } }, [], null, 'x'] as Json[]) {
      expect(keys?.id(raw)).toBeUndefined();
    }
  });
});
