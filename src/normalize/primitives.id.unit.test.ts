import { describe, expect, it } from 'vitest';
import { parseId } from './primitives.js';

describe('parseId', () => {
  it.each([
    ['0b5c6e7e-2f1a-4c1e-9a7e-1f2d3c4b5a69', '0b5c6e7e-2f1a-4c1e-9a7e-1f2d3c4b5a69'],
    [12345, '12345'],
    [0, '0'],
    [Number.MAX_SAFE_INTEGER, '9007199254740991'],
    ['007', '007'],
  ])('%j → %j', (input, expected) => {
    expect(parseId(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    [undefined, 'missing'],
    [null, 'missing'],
    ['', 'empty'],
    ['   ', 'empty'],
    [1.5, 'not a safe integer id: 1.5'],
    [2 ** 53, 'not a safe integer id: 9007199254740992'],
    [{ id: 1 }, 'expected a string or integer id, got an object'],
    [[1], 'expected a string or integer id, got an array'],
    [true, 'expected a string or integer id, got a boolean'],
    ['x'.repeat(256), 'longer than 255 characters'],
  ])('%j is a problem', (input, message) => {
    expect(parseId(input)).toEqual({ ok: false, problem: message });
  });
});
