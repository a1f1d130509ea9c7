import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonExact } from './read-response.js';
import { inexactNumberText, parseId } from '../../normalize/index.js';

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
    // Look-alikes inside strings: after `:` or `,`, behind an escaped quote, in a uuid.
    ['{"s":"k:1.00000000000000001","t":"12:30.5"}', { s: 'k:1.00000000000000001', t: '12:30.5' }],
    ['{"s":"\\",1.00000000000000001","n":1}', { s: '",1.00000000000000001', n: 1 }],
    ['{"id":"0195669e-0d48","u":"d296e-9030"}', { id: '0195669e-0d48', u: 'd296e-9030' }],
    // A negative exponent that underflows to 0, nested arrays, whitespace before the value.
    [
      '{"n":[[2.00000000000000001e0],[-3e-400, 3e-4]],"m" : \n\t-1.00000000000000001E-0}',
      { n: [[{ $inexactNumber: '2.00000000000000001e0' }], [{ $inexactNumber: '-3e-400' }, 0.0003]], m: { $inexactNumber: '-1.00000000000000001E-0' } },
    ],
    // Only an exponent, no point: underflow to 0, or more digits than a double keeps.
    ['{"n":-3e-400}', { n: { $inexactNumber: '-3e-400' } }],
    ['[12345678901234567891E-1]', [{ $inexactNumber: '12345678901234567891E-1' }]],
  ])('%s', (text, expected) => {
    expect(parseJsonExact(text)).toEqual(expected);
  });

  it('matches an exact decimal reading on random JSON with look-alike strings', () => {
    fc.assert(
      fc.property(document, ({ text, value }) => {
        expect(parseJsonExact(text)).toEqual(value);
      }),
      { numRuns: 500 },
    );
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

/**
 * Whether the decimal `literal` has a fraction yet reads as an integer, worked out exactly with
 * BigInt. (A big integer read as a nearby one, `12345678901234567890`, is not marked: ids that
 * long come as strings.)
 */
function readsAsInteger(literal: string): boolean {
  if (!Number.isInteger(Number(literal))) return false;
  const [, whole = '', fraction = '', exponent = '0'] = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal) ?? [];
  const shift = Number(exponent) - fraction.length;
  return shift < 0 && BigInt(whole + fraction) % 10n ** BigInt(-shift) !== 0n;
}

const space = fc.constantFrom('', ' ', '\n', '\t ', '\r\n  ');
const digitRun = (minLength: number, maxLength: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });
const literal = fc
  .tuple(
    fc.constantFrom('', '-'),
    fc.oneof(
      fc.constant('0'),
      fc.tuple(fc.constantFrom('1', '4', '9'), digitRun(0, 19)).map(([a, b]) => a + b),
    ),
  )
  .chain(([sign, whole]) =>
    fc
      .tuple(
        fc.oneof(
          fc.constant(''),
          digitRun(1, 20).map((f) => `.${f}`),
          digitRun(14, 18).map((zeros) => `.${zeros.replace(/./g, '0')}1`),
        ),
        fc.oneof(
          fc.constant(''),
          fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 400 })).map((p) => p.join('')),
        ),
      )
      .map(([fraction, exponent]) => sign + whole + fraction + exponent),
  );
const number = literal.map((text) => ({ text, value: readsAsInteger(text) ? { $inexactNumber: text } : (JSON.parse(text) as unknown) }));
// Strings made of what the reader looks for: literals, quotes, backslashes, `:`, `,`, `[`, hex.
const string = fc
  .array(fc.oneof(literal, fc.constantFrom('"', '\\', ':', ',', '[', ' ', 'd296e-', '0195669e-', 'x')), { maxLength: 6 })
  .map((parts) => parts.join(''))
  .map((value) => ({ text: JSON.stringify(value), value }));
const { document } = fc.letrec<{ document: { text: string; value: unknown } }>((tie) => ({
  document: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    number,
    string,
    fc.constantFrom({ text: 'true', value: true }, { text: 'null', value: null }),
    fc.array(tie('document'), { maxLength: 4 }).chain((items) =>
      fc.array(space, { minLength: 2 * items.length + 2, maxLength: 2 * items.length + 2 }).map((gaps) => ({
        text: `${gaps[0]}[${items.map((item, index) => `${gaps[2 * index + 1]}${item.text}${gaps[2 * index + 2]}`).join(',')}]${gaps.at(-1)}`,
        value: items.map((item) => item.value),
      })),
    ),
    fc.array(fc.tuple(string, tie('document'), space), { maxLength: 4 }).map((entries) => ({
      text: `{${entries.map(([key, item, gap]) => `${key.text}${gap}:${gap}${item.text}`).join(',')}}`,
      value: Object.fromEntries(entries.map(([key, item]) => [key.value, item.value])),
    })),
  ),
}));
