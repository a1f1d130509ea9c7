import { describe, expect, it } from 'vitest';
import { parsePhone } from './primitives.js';

describe('parsePhone', () => {
  it.each([
    ['+14155552671', '+14155552671'],
    [' +442071838750 ', '+442071838750'],
    [14155552671, '+14155552671'],
    ['14155552671', '+14155552671'],
    ['(415) 555-2671', '+14155552671'],
    ['415.555.2671', '+14155552671'],
    ['+1 415-555-2671', '+14155552671'],
    ['+44 20 7183 8750', '+442071838750'],
    [null, null],
    [undefined, null],
    ['', null],
  ])('%j → %j', (input, expected) => {
    expect(parsePhone(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['+0123456789', 'not an E.164 number: "+0123456789"'],
    ['+12345', 'not an E.164 number: "+12345"'],
    ['+1234567890123456', 'not an E.164 number: "+1234567890123456"'],
    [12345, 'not an E.164 number: 12345'],
    [-14155552671, 'not a phone number: -14155552671'],
    [1.5, 'not a phone number: 1.5'],
    ['anonymous', 'not an E.164 number: "anonymous"'],
    ['555-12', 'not an E.164 number: "555-12"'],
    ['+1 415 555 2671 ext 9', 'not an E.164 number: "+1 415 555 2671 ext 9"'],
    [{ e164: '+14155552671' }, 'expected a phone number, got an object'],
    [true, 'expected a phone number, got a boolean'],
  ])('%j is a problem', (input, message) => {
    expect(parsePhone(input)).toEqual({ ok: false, problem: message });
  });
});
