import { describe, expect, it } from 'vitest';
import { parseDuration } from './primitives.js';

describe('parseDuration', () => {
  it.each([
    ['00:00:00', 0],
    ['00:01:05', 65],
    ['01:02:03', 3723],
    ['100:00:00', 360_000],
    ['02:30', 150],
    ['75:00', 4500],
    [' 00:00:42 ', 42],
    ['42', 42],
    [42, 42],
    [0, 0],
    [null, null],
    [undefined, null],
    ['', null],
  ])('%j → %j', (input, expected) => {
    expect(parseDuration(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['00:60:00', 'unparseable duration "00:60:00"'],
    ['00:00:60', 'unparseable duration "00:00:60"'],
    ['1:2:3', 'unparseable duration "1:2:3"'],
    ['-00:00:05', 'unparseable duration "-00:00:05"'],
    ['12.5', 'unparseable duration "12.5"'],
    ['abc', 'unparseable duration "abc"'],
    [-5, 'negative duration -5'],
    [1.5, 'not a whole number of seconds: 1.5'],
    [Number.MAX_SAFE_INTEGER + 2, 'not a whole number of seconds: 9007199254740992'],
    ['99999999999999999999', 'duration out of range "99999999999999999999"'],
    [true, 'expected "HH:MM:SS" or seconds, got a boolean'],
    [{ seconds: 5 }, 'expected "HH:MM:SS" or seconds, got an object'],
  ])('%j is a problem', (input, message) => {
    expect(parseDuration(input)).toEqual({ ok: false, problem: message });
  });
});
