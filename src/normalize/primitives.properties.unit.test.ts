import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ColumnSpec } from './column-types.js';
import type { Json } from '../base/json.js';
import {
  callColumns,
  genericColumns,
  normalizeV1Call,
  normalizeV1Generic,
  normalizeV1Number,
  normalizeV2Call,
  normalizeV2Voicemail,
  numberColumns,
  parseV2Timestamp,
  voicemailColumns,
  zoneOffsetMs,
  type NormalizeContext,
  type Normalizer,
} from './index.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const E164 = /^\+[1-9]\d{6,14}$/;
const zones = ['UTC', 'America/New_York', 'Europe/London', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham'];
const context = fc.record<NormalizeContext>({
  recordingsBaseUrl: fc.constantFrom('https://calls.example.com', 'http://127.0.0.1:8080/media/'),
  v2TimeZone: fc.constantFrom(...zones, 'Not/AZone'),
});

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
const localTime = fc
  .date({ min: new Date('1971-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => new Date(Math.floor(d.getTime() / 1000) * 1000));
const v2Text = (d: Date): string =>
  `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;

// Upstream-shaped values mixed with arbitrary JSON, so generated records hit the parsers' edges.
const fieldValue: fc.Arbitrary<Json> = fc.oneof(
  fc.jsonValue() as fc.Arbitrary<Json>,
  fc.constantFrom<Json>('+14155550100', 14155550100, '00:01:05', '2024-03-05 14:07:09', '2024-03-05T14:07:09Z', '/a/b.wav', '', 'inbound', 'OUTBOUND'),
  localTime.map(v2Text),
);

function recordWith(keys: readonly string[]): fc.Arbitrary<Json> {
  const shaped = fc.dictionary(fc.constantFrom(...keys), fieldValue, { maxKeys: keys.length }) as fc.Arbitrary<Json>;
  return fc.oneof(shaped, fc.jsonValue() as fc.Arbitrary<Json>);
}

const cases: [string, Normalizer, readonly ColumnSpec[], readonly string[]][] = [
  [
    'v2 voicemail',
    normalizeV2Voicemail,
    voicemailColumns,
    [
      'uuid',
      'voicemail_to_number',
      'voicemail_from_number',
      'voicemail_transcription_text',
      'voicemail_transcription_summary',
      'voicemail_recording_type',
      'voicemail_recording_url',
      'voicemail_api_recording_url',
      'voicemail_duration',
      'voicemail_created_at',
    ],
  ],
  [
    'v2 call',
    normalizeV2Call,
    callColumns,
    ['uuid', 'call_to_number', 'call_from_number', 'call_transcription_text', 'call_direction', 'call_recording_url', 'call_created_at'],
  ],
  [
    'v1 call',
    normalizeV1Call,
    callColumns,
    ['id', 'to_number', 'from', 'from_number', 'direction', 'recording_url', 'transcription', 'transcription_text', 'created_at', 'status'],
  ],
  ['v1 number', normalizeV1Number, numberColumns, ['id', 'number', 'phone_number']],
  ['v1 generic', normalizeV1Generic('id', 'created_at'), genericColumns, ['id', 'created_at', 'body']],
];

function assertValid(fields: Record<string, unknown>, columns: readonly ColumnSpec[]): void {
  expect(Object.keys(fields).sort()).toEqual(columns.map((c) => c.name).sort());
  for (const column of columns) {
    const value = fields[column.name];
    if (value === null) continue;
    if (column.type === 'integer') expect(Number.isSafeInteger(value) && (value as number) >= 0).toBe(true);
    else if (column.type === 'timestamp') expect(value).toMatch(ISO_UTC);
    else expect(typeof value).toBe('string');
    if (column.name.endsWith('_number') || column.name === 'number') expect(value).toMatch(E164);
    if (column.name.endsWith('recording_url')) expect(value).toMatch(/^https?:\/\//i);
    if (column.name === 'direction') expect(['inbound', 'outbound']).toContain(value);
  }
}

describe.each(cases)('%s normalizer', (_name, normalize, columns, keys) => {
  it('never throws: every input is a valid record or a reason naming a field', () => {
    fc.assert(
      fc.property(recordWith(keys), context, (raw, ctx) => {
        const result = normalize(raw, ctx);
        if (result.ok) {
          expect(result.id.length).toBeGreaterThan(0);
          assertValid(result.fields, columns);
        } else {
          expect(result.reason).toMatch(/^[a-z_]+: \S/);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('v2 timestamps', () => {
  it('round-trip: UTC output formatted back in the zone gives the input wall-clock time (outside DST gaps)', () => {
    fc.assert(
      fc.property(localTime, fc.constantFrom(...zones), (wall, zone) => {
        const result = parseV2Timestamp(v2Text(wall), zone);
        if (!result.ok || result.value === null) throw new Error('expected a timestamp');
        const instant = Date.parse(result.value);
        const back = new Date(instant + zoneOffsetMs(instant, zone));
        const gap = back.getTime() - wall.getTime();
        // Equal, or shifted forward by less than the two hours any zone skips at a transition.
        expect(gap === 0 || (gap > 0 && gap <= 2 * 3_600_000)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('in UTC is a pure reformat', () => {
    fc.assert(
      fc.property(localTime, (wall) => {
        expect(parseV2Timestamp(v2Text(wall), 'UTC')).toEqual({ ok: true, value: `${wall.toISOString().slice(0, 19)}Z` });
      }),
    );
  });
});
