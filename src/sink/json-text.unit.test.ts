import { describe, expect, it } from 'vitest';
import type { Json } from './sink.js';
import { jsonText } from './json-text.js';

/** `{ a: [ { a: [ … "bottom" ] } ] }`, `levels` objects deep. */
function nested(levels: number): Json {
  let value: Json = 'bottom';
  for (let level = 0; level < levels; level++) value = { a: [value], n: level, s: 'x"\ud83d' };
  return value;
}

describe('jsonText', () => {
  it('writes what JSON.stringify writes, indentation included, when it copes', () => {
    const value = nested(50);
    expect(jsonText(value)).toBe(JSON.stringify(value));
    expect(jsonText(value, 2)).toBe(JSON.stringify(value, null, 2));
  });

  it('writes JSON nested 6,000 deep, which JSON.stringify cannot, byte for byte as JSON.stringify would', () => {
    let value: Json = ['bottom', 1, null];
    for (let level = 0; level < 6000; level++) value = { a: value, b: [] };
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    expect(jsonText(value, 2)).toBe(`${'{"a":'.repeat(6000)}["bottom",1,null]${',"b":[]}'.repeat(6000)}`);
  });
});
