import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoSeconds, parseIsoTimestamp, parseV2Timestamp } from './primitives.js';
import { isValidTimeZone, zoneOffsetMs } from './zone-offset.js';

describe('parseV2Timestamp', () => {
  it.each([
    ['2024-03-05 14:07:09', 'UTC', '2024-03-05T14:07:09Z'],
    ['2024-02-29 23:59:59', 'UTC', '2024-02-29T23:59:59Z'],
    ['2024-01-15 10:00:00', 'America/New_York', '2024-01-15T15:00:00Z'],
    ['2024-07-15 10:00:00', 'America/New_York', '2024-07-15T14:00:00Z'],
    ['2024-07-15 01:00:00', 'Europe/Berlin', '2024-07-14T23:00:00Z'],
    ['2024-01-01 00:30:00', 'Asia/Kolkata', '2023-12-31T19:00:00Z'],
    ['2024-06-01 12:00:00', 'Australia/Lord_Howe', '2024-06-01T01:30:00Z'],
    // Spring forward: 02:30 does not exist in New York on 2024-03-10; shifted forward by the gap.
    ['2024-03-10 02:30:00', 'America/New_York', '2024-03-10T07:30:00Z'],
    ['2024-03-10 03:00:00', 'America/New_York', '2024-03-10T07:00:00Z'],
    // Fall back: 01:30 happens twice on 2024-11-03; the earlier (EDT) instant is chosen.
    ['2024-11-03 01:30:00', 'America/New_York', '2024-11-03T05:30:00Z'],
    ['2024-11-03 02:30:00', 'America/New_York', '2024-11-03T07:30:00Z'],
    ['2024-03-31 02:30:00', 'Europe/London', '2024-03-31T01:30:00Z'],
    ['2024-10-27 01:30:00', 'Europe/London', '2024-10-27T00:30:00Z'],
    // A value that carries its own zone is taken as such.
    ['2024-03-05T14:07:09Z', 'America/New_York', '2024-03-05T14:07:09Z'],
    [null, 'UTC', null],
    ['', 'UTC', null],
  ])('%j in %s → %j', (input, zone, expected) => {
    expect(parseV2Timestamp(input, zone)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['2024-13-01 10:00:00', 'UTC', 'unparseable "2024-13-01 10:00:00"'],
    ['2024-02-30 10:00:00', 'UTC', 'unparseable "2024-02-30 10:00:00"'],
    ['2023-02-29 10:00:00', 'UTC', 'unparseable "2023-02-29 10:00:00"'],
    ['2024-01-01 25:00:00', 'UTC', 'unparseable "2024-01-01 25:00:00"'],
    ['2024-01-01 24:00:00', 'UTC', 'unparseable "2024-01-01 24:00:00"'],
    ['2024-01-01 10:60:00', 'UTC', 'unparseable "2024-01-01 10:60:00"'],
    ['2024-01-00 10:00:00', 'UTC', 'unparseable "2024-01-00 10:00:00"'],
    ['2024-1-1 10:00:00', 'UTC', 'unparseable "2024-1-1 10:00:00"'],
    ['2024-03-05T14:07:09', 'UTC', 'unparseable "2024-03-05T14:07:09"'],
    ['yesterday', 'UTC', 'unparseable "yesterday"'],
    ['2024-01-01 10:00:00', 'Mars/Olympus_Mons', 'unknown time zone "Mars/Olympus_Mons"'],
    [1709647629, 'UTC', 'expected "YYYY-MM-DD HH:MM:SS", got a number'],
    [{}, 'UTC', 'expected "YYYY-MM-DD HH:MM:SS", got an object'],
  ])('%j in %s is a problem', (input, zone, message) => {
    expect(parseV2Timestamp(input, zone)).toEqual({ ok: false, problem: message });
  });
});

describe('parseIsoTimestamp', () => {
  it.each([
    ['2024-03-05T14:07:09Z', '2024-03-05T14:07:09Z'],
    ['2024-03-05T14:07:09.123456Z', '2024-03-05T14:07:09Z'],
    ['2024-03-05t14:07:09z', '2024-03-05T14:07:09Z'],
    ['2024-03-05T14:07:09+02:00', '2024-03-05T12:07:09Z'],
    ['2024-03-05T14:07:09-0530', '2024-03-05T19:37:09Z'],
    ['2024-01-01T00:30:00+01:00', '2023-12-31T23:30:00Z'],
    ['2024-03-05 14:07:09', '2024-03-05T14:07:09Z'],
    ['2024-03-05T14:07:09', '2024-03-05T14:07:09Z'],
    // Already canonical (the fast path): returned as given.
    ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59Z'],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00Z'],
    ['2024-12-31T23:59:59Z', '2024-12-31T23:59:59Z'],
    ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59Z'],
    [' 2024-03-05T14:07:09Z ', '2024-03-05T14:07:09Z'],
    [null, null],
    [undefined, null],
    ['', null],
  ])('%j → %j', (input, expected) => {
    expect(parseIsoTimestamp(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['2024-02-30T10:00:00Z', 'impossible date "2024-02-30T10:00:00Z"'],
    ['2024-01-01T25:00:00Z', 'impossible date "2024-01-01T25:00:00Z"'],
    ['2024-13-01T00:00:00Z', 'impossible date "2024-13-01T00:00:00Z"'],
    ['2024-00-10T00:00:00Z', 'impossible date "2024-00-10T00:00:00Z"'],
    ['2024-01-00T00:00:00Z', 'impossible date "2024-01-00T00:00:00Z"'],
    ['2023-02-29T00:00:00Z', 'impossible date "2023-02-29T00:00:00Z"'],
    ['1900-02-29T00:00:00Z', 'impossible date "1900-02-29T00:00:00Z"'],
    ['2024-04-31T00:00:00Z', 'impossible date "2024-04-31T00:00:00Z"'],
    ['2024-01-01T24:00:00Z', 'impossible date "2024-01-01T24:00:00Z"'],
    ['2024-01-01T23:60:00Z', 'impossible date "2024-01-01T23:60:00Z"'],
    ['2024-01-01T23:59:60Z', 'impossible date "2024-01-01T23:59:60Z"'],
    ['2024-0a-01T00:00:00Z', 'unparseable "2024-0a-01T00:00:00Z"'],
    ['2024/01/01T00:00:00Z', 'unparseable "2024/01/01T00:00:00Z"'],
    ['2024-01-01T10:00:00+24:00', 'impossible offset "2024-01-01T10:00:00+24:00"'],
    ['2024-01-01', 'unparseable "2024-01-01"'],
    ['0000-01-01T00:00:00+01:00', 'out of range "0000-01-01T00:00:00+01:00"'],
    [1709647629000, 'expected an ISO 8601 string, got a number'],
  ])('%j is a problem', (input, message) => {
    expect(parseIsoTimestamp(input)).toEqual({ ok: false, problem: message });
  });
});

describe('parseIsoTimestamp on canonical-shaped input', () => {
  const digits = (count: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: count, maxLength: count }).map((d) => d.join(''));
  const shaped = fc.tuple(digits(4), digits(2), digits(2), digits(2), digits(2), digits(2)).map(([y, mo, d, h, mi, s]) => `${y}-${mo}-${d}T${h}:${mi}:${s}Z`);

  it('accepts exactly the strings that name a real instant, unchanged', () => {
    fc.assert(
      fc.property(shaped, (text) => {
        const date = new Date(text);
        // Date normalises overflow (Feb 30 → Mar 1, 24:00 → next day), so a round trip tells real from impossible.
        const real = !Number.isNaN(date.getTime()) && `${date.toISOString().slice(0, 19)}Z` === text;
        expect(parseIsoTimestamp(text)).toEqual(real ? { ok: true, value: text } : { ok: false, problem: `impossible date ${JSON.stringify(text)}` });
      }),
      { numRuns: 2000 },
    );
  });

  it('returns any formatted instant unchanged', () => {
    const instant = fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });
    fc.assert(
      fc.property(instant, (date) => {
        const text = `${date.toISOString().slice(0, 19)}Z`;
        expect(parseIsoTimestamp(text)).toEqual({ ok: true, value: text });
      }),
    );
  });
});

describe('zoneOffsetMs', () => {
  it('follows DST in the zone', () => {
    expect(zoneOffsetMs(Date.UTC(2024, 0, 15), 'America/New_York')).toBe(-5 * 3_600_000);
    expect(zoneOffsetMs(Date.UTC(2024, 6, 15), 'America/New_York')).toBe(-4 * 3_600_000);
    expect(zoneOffsetMs(Date.UTC(2024, 6, 15), 'UTC')).toBe(0);
  });

  it('matches a fresh Intl reading every 7 s around changes off the UTC hour', () => {
    // Read another way than the subject reads it (the zone's own offset name, not its wall clock), so
    // a mistake in turning wall-clock parts into an offset cannot hide in the reference too.
    const reference = (ms: number, timeZone: string): number => {
      const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value;
      const offset = /^GMT(?:([+-])(\d\d):(\d\d)(?::(\d\d))?)?$/.exec(name ?? '');
      if (offset === null) throw new Error(`unexpected offset name ${String(name)}`);
      const [, sign, hours = '0', minutes = '0', seconds = '0'] = offset;
      return (sign === '-' ? -1 : 1) * ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000;
    };
    const changes: [string, number][] = [
      ['America/St_Johns', Date.UTC(2024, 10, 3, 4, 30)], // -2:30 -> -3:30 at :30 UTC
      ['Australia/Lord_Howe', Date.UTC(2024, 3, 6, 15)], // a 30-minute DST change
      ['Asia/Kathmandu', Date.UTC(1985, 11, 31, 18, 30)], // +5:30 -> +5:45
      ['Europe/Amsterdam', Date.UTC(1937, 5, 30, 23, 40, 28)], // +0:19:32 -> +0:20, off the minute
    ];
    for (const [zone, change] of changes) {
      // Inside the change's hour first, so the memo is filled from a point on either side.
      const instants = [change - 1000, change, change + 1000];
      for (let ms = change - 2 * 3_600_000; ms <= change + 2 * 3_600_000; ms += 7_000) instants.push(ms);
      for (const ms of instants) expect(zoneOffsetMs(ms, zone), `${zone} at ${ms}`).toBe(reference(ms, zone));
    }
  });

  it('validates zone names', () => {
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('Europe/Nowhere')).toBe(false);
  });
});

describe('isoSeconds', () => {
  it('formats as YYYY-MM-DDTHH:MM:SSZ', () => {
    expect(isoSeconds(Date.parse('2025-03-04T05:06:07.891Z'))).toBe('2025-03-04T05:06:07Z');
  });
});
