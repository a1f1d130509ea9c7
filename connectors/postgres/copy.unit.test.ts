import { describe, expect, it } from 'vitest';
import { copyField, copyText } from './copy.js';

describe('COPY text format', () => {
  it.each([
    [null, '\\N'],
    [undefined, '\\N'],
    ['plain', 'plain'],
    ['', ''],
    ['\\N', '\\\\N'],
    ['\\.', '\\\\.'],
    ['a\tb\nc\rd\\e', 'a\\tb\\nc\\rd\\\\e'],
    ['\b\f\v stay as they are', '\b\f\v stay as they are'],
    [1.5, '1.5'],
    [-0, '0'],
    [1e21, '1e+21'],
    [9007199254740991, '9007199254740991'],
    [true, 't'],
    [false, 'f'],
  ])('writes %j as %j', (value, text) => {
    expect(copyField(value)).toBe(text);
  });

  it('refuses a value it has no text form for, rather than guessing one', () => {
    expect(() => copyField({ a: 1 })).toThrow('a object value has no COPY text form');
  });

  it('writes a line a row, fields split by tabs, in chunks that end at a line end', () => {
    expect(
      [
        ...copyText([
          ['a', null, 1],
          ['b\tc', 'd', 2],
        ]),
      ].join(''),
    ).toBe('a\t\\N\t1\nb\\tc\td\t2\n');
    const rows = Array.from({ length: 3000 }, (_, i) => [`row ${i}`, 'x'.repeat(200)]);
    const chunks = [...copyText(rows)];
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.endsWith('\n')).toBe(true);
    expect(chunks.join('').split('\n')).toHaveLength(3001);
  });
});
