import { describe, expect, it } from 'vitest';
import { phoneForms, typedPhoneMatches } from './phone-match.js';

describe('phoneForms', () => {
  it.each([
    ['+14155550123', { international: '14155550123', national: '4155550123' }],
    ['+442079460018', { international: '442079460018', national: '2079460018' }],
    ['+4930123456', { international: '4930123456', national: '30123456' }],
  ])('%s', (e164, forms) => expect(phoneForms(e164)).toEqual(forms));

  it.each(['4155550123', '+0123', '', 'tel:+14155550123'])('no forms for a non-E.164 %j', (value) => expect(phoneForms(value)).toBeNull());
});

describe('typedPhoneMatches', () => {
  const us = phoneForms('+14155550123');
  const uk = phoneForms('+442079460018');
  it.each([
    ['(415) 555-0123', true],
    ['415.555.0123', true],
    ['415-555-0123', true],
    ['+1 415 555 0123', true],
    ['+1 (415) 555-0123', true],
    ['1-415-555-0123', true],
    ['14155550123', true],
    ['001 415 555 0123', true],
    ['(415) 555-0123 x12', true],
    ['415 555 0123 ext. 7', true],
    ['+14155550123', true],
    ['(415) 555-0124', false],
    ['+44 415 555 0123', false],
    ['555-0123', false],
    ['', false],
    [null, false],
  ])('US caller, typed %j → %s', (typed, expected) => {
    expect(us && typedPhoneMatches(typed, us)).toBe(expected);
  });

  it.each([
    ['020 7946 0018', true],
    ['+44 20 7946 0018', true],
    ['0044 20 7946 0018', true],
    ['20 7946 0018', true],
    ['+1 207 946 0018', false],
  ])('UK caller, typed %j → %s', (typed, expected) => {
    expect(uk && typedPhoneMatches(typed, uk)).toBe(expected);
  });
});
