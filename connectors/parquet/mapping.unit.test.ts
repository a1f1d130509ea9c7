import { describe, expect, it } from 'vitest';
import type { StreamTable, SyncRecord } from '../../src/sink/sink.js';
import { recordRow, refusal } from './mapping.js';

const table: StreamTable = { stream: 'calls', table: 'calls', columns: [{ name: 'created_at', type: 'timestamp' }] };
const call = (createdAt: string): SyncRecord => ({ businessId: 'acme', id: 'c1', source: 'v1', fields: { created_at: createdAt }, raw: {} });

describe('refusal of timestamps', () => {
  it.each([
    ['2026-11-28T10:00:00Z'],
    ['2026-11-28T10:00:00.123456Z'],
    ['2024-02-29T10:00:00Z'],
    ['2000-02-29T10:00:00Z'],
    ['2026-12-31T24:00:00Z'],
    ['2026-11-28T10:00:00+05:30'],
    ['2026-11-28T10:00:00-00:00'],
  ])('takes %s', (text) => {
    expect(refusal(call(text), table.columns)).toBeUndefined();
  });

  it.each([
    ['a day February lacks', '2026-02-29T10:00:00Z'],
    ['February 29 of a century not divisible by 400', '1900-02-29T10:00:00Z'],
    ['a day April lacks', '2026-04-31T00:00:00Z'],
    ['month 13', '2026-13-01T10:00:00Z'],
    ['day 0', '2026-01-00T10:00:00Z'],
    ['past 24:00', '2026-01-01T24:00:01Z'],
    ['hour 25', '2026-01-01T25:00:00Z'],
    ['minute 60', '2026-01-01T23:60:00Z'],
    ['second 60', '2026-01-01T23:59:60Z'],
    ['an offset of 24 hours', '2026-01-01T10:00:00+24:00'],
    ['an offset minute of 60', '2026-01-01T10:00:00+05:60'],
    ['no zone', '2026-01-01T10:00:00'],
    ['an instant before year 0000 once UTC', '0000-01-01T00:30:00+01:00'],
  ])('refuses %s, naming the column', (_name, text) => {
    expect(refusal(call(text), table.columns)).toBe(`created_at: ${JSON.stringify(text)} is not a valid timestamp`);
  });
});

describe('recordRow', () => {
  it.each([
    ['2026-11-28T10:00:00Z', '2026-11-28T10:00:00Z'],
    ['2026-11-28T10:00:00.123456+05:30', '2026-11-28T04:30:00.123456Z'],
    ['2026-11-28T23:30:00-01:00', '2026-11-29T00:30:00Z'],
    ['2026-12-31T24:00:00+00:00', '2027-01-01T00:00:00Z'],
  ])('stores %s as the UTC text %s (the appender would drop an offset)', (text, utc) => {
    expect(recordRow(call(text), table, 1n, '{}', '2026-11-28T10:00:00.000Z')[4]).toBe(utc);
  });
});
