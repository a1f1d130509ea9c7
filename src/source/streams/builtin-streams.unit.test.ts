import { describe, expect, it } from 'vitest';
import type { Json } from '../../sink/sink.js';
import { builtinStreams } from './builtin-streams.js';

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
    const createdAt = descriptor?.createdAt;
    expect(createdAt).toBeDefined();
    for (const v2TimeZone of zones) {
      const context = { recordingsBaseUrl: 'https://calls.example.com', v2TimeZone };
      for (const at of times) {
        const raw: Json = { uuid: 7, [field]: at };
        const normalized = descriptor?.normalize(raw, context);
        expect(normalized?.ok && normalized.fields.created_at).toBe(createdAt?.(raw, context));
      }
    }
  });

  it.each(cases)('%s: reads nothing when the date is missing or not one', (name, field) => {
    const createdAt = builtinStreams.get(name)?.createdAt;
    const context = { recordingsBaseUrl: 'https://calls.example.com', v2TimeZone: 'UTC' };
    for (const raw of [{ uuid: 7 }, { uuid: 7, [field]: null }, { uuid: 7, [field]: '2024-13-01 10:00:00' }, { uuid: 7, [field]: 5 }, [], 'x'] as Json[]) {
      expect(createdAt?.(raw, context)).toBeUndefined();
    }
  });
});
