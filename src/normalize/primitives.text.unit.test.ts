import { describe, expect, it } from 'vitest';
import { MAX_TEXT_BYTES, parseDirection, parseText } from './primitives.js';

describe('parseText', () => {
  it.each([
    ['hello', 'hello'],
    [' ', ' '],
    ['', null],
    [null, null],
    [undefined, null],
  ])('%j → %j', (input, expected) => {
    expect(parseText(input)).toEqual({ ok: true, value: expected });
  });

  it('accepts exactly 1 MB and rejects one byte more, counting UTF-8 bytes', () => {
    expect(parseText('a'.repeat(MAX_TEXT_BYTES)).ok).toBe(true);
    expect(parseText('a'.repeat(MAX_TEXT_BYTES + 1))).toEqual({ ok: false, problem: 'longer than 1048576 bytes' });
    // 400k three-byte characters: fewer characters than the limit but more bytes.
    expect(parseText('€'.repeat(400_000)).ok).toBe(false);
  });

  it.each([[42], [true], [{ text: 'x' }], [['x']]])('%j is a problem', (input) => {
    expect(parseText(input).ok).toBe(false);
  });
});

describe('parseDirection', () => {
  it.each([
    ['inbound', 'inbound'],
    ['OUTBOUND', 'outbound'],
    [' Inbound ', 'inbound'],
    ['internal', null],
    ['', null],
    [null, null],
    [undefined, null],
  ])('%j → %j', (input, expected) => {
    expect(parseDirection(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    [{ value: 'inbound' }, 'expected a string, got an object'],
    [1, 'expected a string, got a number'],
  ])('%j is a problem', (input, message) => {
    expect(parseDirection(input)).toEqual({ ok: false, problem: message });
  });
});
