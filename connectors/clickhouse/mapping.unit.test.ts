import { describe, expect, it } from 'vitest';
import { serverError } from './errors.js';
import { literalParts, quoteString, unstorableField } from './mapping.js';
import { VersionClock } from './versions.js';

describe('quoteString', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", "'it\\'s'"],
    ['back\\slash', "'back\\\\slash'"],
    ["\\'", "'\\\\\\''"],
    ['nul\u0000tab\tline\n', "'nul\\x00tab\\x09line\\x0a'"],
    ['del\u007f', "'del\\x7f'"],
    ['emoji 📞 é', "'emoji 📞 é'"],
  ])('%j becomes the one literal %s', (value, literal) => {
    expect(quoteString(value)).toBe(literal);
  });
});

describe('VersionClock', () => {
  it('rises on every call, above the stored version and across a clock that steps back', () => {
    let now = 1_700_000_000_000;
    const clock = new VersionClock(() => now);
    const first = clock.next();
    expect(first).toBe(now * 1000);
    expect(clock.next()).toBe(first + 1);
    now -= 60_000;
    expect(clock.next()).toBe(first + 2);
    expect(clock.next(first + 100)).toBe(first + 101);
    const block = clock.next(0, 5);
    expect(block).toBe(first + 102);
    expect(clock.next()).toBe(first + 107);
  });
});

describe('serverError', () => {
  it.each([
    [
      'Code: 193, e.displayText() = DB::Exception: Wrong password for user default, e.what() = DB::Exception\n',
      193,
      'ClickHouse: Wrong password for user default (code 193)',
    ],
    [
      'Code: 81. DB::Exception: Database nosuchdb does not exist. (UNKNOWN_DATABASE) (version 24.3.1.1)',
      81,
      'ClickHouse: Database nosuchdb does not exist. (UNKNOWN_DATABASE) (code 81)',
    ],
  ])('reads the code of 18.x and current exceptions alike: %s', (message, code, text) => {
    const read = serverError(new Error(message));
    expect(read).toMatchObject({ name: 'ClickHouseServerError', serverCode: code, code: `CLICKHOUSE_${code}`, message: text });
  });

  it('leaves a network failure as it came', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' });
    expect(serverError(refused)).toBe(refused);
  });
});

describe('unstorableField', () => {
  const table = { stream: 'sms', table: 'sms', columns: [{ name: 'created_at', type: 'timestamp' as const }] };
  const record = (created_at: string) => ({ businessId: 'b', id: '1', source: 'v1' as const, fields: { created_at }, raw: {} });

  it("refuses a timestamp outside DateTime's range, which ClickHouse would store as another instant", () => {
    expect(unstorableField(table, record('1970-01-01T00:00:00Z'))).toBeUndefined();
    expect(unstorableField(table, record('2106-02-07T06:28:15Z'))).toBeUndefined();
    expect(unstorableField(table, record('1969-12-31T23:59:59Z'))).toMatch(/^created_at: 1969-12-31T23:59:59Z is outside/);
    expect(unstorableField(table, record('2106-02-07T06:28:16Z'))).toMatch(/^created_at: 2106-02-07T06:28:16Z is outside/);
  });
});

describe('literalParts', () => {
  it('keeps an IN list far under ClickHouse 256 KiB query limit, even for 500 ids of 1,024 characters', () => {
    const long = Array.from({ length: 500 }, (_, index) => `${index}`.padEnd(1024, 'x'));
    const parts = literalParts(long, (id) => id, 500);
    expect(parts.flat()).toEqual(long);
    for (const part of parts) expect(Buffer.byteLength(part.map(quoteString).join(', '))).toBeLessThanOrEqual(128 * 1024);
    expect(parts).toHaveLength(Math.ceil(500 / 31));
    expect(literalParts(['a', 'b', 'c'], (id) => id, 2)).toEqual([['a', 'b'], ['c']]);
    expect(literalParts([], (id: string) => id, 2)).toEqual([]);
  });
});
