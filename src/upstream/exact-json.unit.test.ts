import { describe, expect, it } from 'vitest';
import { parseJsonExact } from './read-response.js';
import { inexactNumberText, parseId } from '../normalize/index.js';

describe('parseJsonExact', () => {
  it.each([
    ['{"uuid":100000016.0000000001}', { uuid: { $inexactNumber: '100000016.0000000001' } }],
    ['[1.00000000000000001e3, -5.0000000000000000001]', [{ $inexactNumber: '1.00000000000000001e3' }, { $inexactNumber: '-5.0000000000000000001' }]],
    ['{"a":"100000016.0000000001","b":12.000000000000000000}', { a: '100000016.0000000001', b: 12 }],
    ['{"s":"x\\"1234567890123456.5","n":1e3,"f":0.30000000000000004}', { s: 'x"1234567890123456.5', n: 1000, f: 0.30000000000000004 }],
    ['{"big":12345678901234567890,"ok":100000016}', { big: Number('12345678901234567890'), ok: 100000016 }],
    [
      '{\n  "a": [\n    1.00000000000000001,\t-2e0\r\n  ],\n  "b":\n 7.00000000000000001E+0\n}',
      { a: [{ $inexactNumber: '1.00000000000000001' }, -2], b: { $inexactNumber: '7.00000000000000001E+0' } },
    ],
    ['1.00000000000000001', { $inexactNumber: '1.00000000000000001' }],
    [' 30000000000000001.5', { $inexactNumber: '30000000000000001.5' }],
    [
      '{"id":"0195-3e4f-ee3ca6e4ed18","url":"https://x.test:8080/a/1234567890123456789.0","n":42}',
      { id: '0195-3e4f-ee3ca6e4ed18', url: 'https://x.test:8080/a/1234567890123456789.0', n: 42 },
    ],
  ])('%s', (text, expected) => {
    expect(parseJsonExact(text)).toEqual(expected);
  });

  it('throws on text that is not JSON, like JSON.parse', () => {
    expect(() => parseJsonExact('{"a":1.00000000000000001')).toThrow(SyntaxError);
  });

  it('marks only what parseId then refuses, naming the value', () => {
    const record = parseJsonExact('{"uuid":100000016.0000000001}') as { uuid: unknown };
    expect(inexactNumberText(record.uuid)).toBe('100000016.0000000001');
    expect(parseId(record.uuid)).toEqual({ ok: false, problem: 'not an exact integer id: 100000016.0000000001 (a JSON parser reads it as 100000016)' });
    expect(parseId(parseJsonExact('100000016'))).toEqual({ ok: true, value: '100000016' });
  });
});
