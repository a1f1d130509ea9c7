import { describe, expect, it } from 'vitest';
import { directionDecidedNote, otherParty, toE164, type PartyInput } from './other-party.js';

const TRACKED = '+14155550100';
const CUSTOMER = '+12125550199';
const tracked = new Set([TRACKED]);
const isTracked = (number: string): boolean => tracked.has(number);

describe('toE164', () => {
  it.each([
    ['+14155550123', '+14155550123'],
    ['(415) 555-0123', '+14155550123'],
    ['415.555.0123', '+14155550123'],
    ['4155550123', '+14155550123'],
    ['1 415 555 0123', '+14155550123'],
    [' +44 20 7946 0018 ', '+442079460018'],
    [14155550123, '+14155550123'],
    ['447911123456', '+447911123456'],
  ])('%j → %s', (typed, e164) => {
    expect(toE164(typed)).toBe(e164);
  });

  it.each([[null], [''], ['not a phone'], [{}], ['12']])('%j is no number', (typed) => {
    expect(toE164(typed)).toBeNull();
  });
});

describe('otherParty', () => {
  const call = (from: unknown, to: unknown, direction: PartyInput['direction']): PartyInput => ({ from, to, direction });

  it.each([
    ['inbound, to tracked', call(CUSTOMER, TRACKED, 'inbound'), CUSTOMER, 'from'],
    ['outbound from the tracked number to the customer', call(TRACKED, CUSTOMER, 'outbound'), CUSTOMER, 'to'],
    // The spec's literal reading: call_to_number is the tracked number even on outbound calls.
    ['outbound with to = tracked number', call(CUSTOMER, TRACKED, 'outbound'), CUSTOMER, 'from'],
    ['inbound with from = tracked number', call(TRACKED, CUSTOMER, 'inbound'), CUSTOMER, 'to'],
    ['tracked number typed nationally', call(CUSTOMER, '(415) 555-0100', 'outbound'), CUSTOMER, 'from'],
    ['unknown direction', call(CUSTOMER, TRACKED, null), CUSTOMER, 'from'],
  ])('%s: the untracked number, whatever the direction', (_name, input, number, side) => {
    expect(otherParty(input, isTracked)).toEqual({ number, side, basis: 'tracked' });
  });

  it('returns null when the only other side is empty', () => {
    expect(otherParty(call(TRACKED, null, 'outbound'), isTracked)).toEqual({ number: null, side: 'to', basis: 'tracked' });
  });

  it.each([
    ['neither tracked, inbound', call(CUSTOMER, '+13105550111', 'inbound'), CUSTOMER, 'from'],
    ['neither tracked, outbound', call('+13105550111', CUSTOMER, 'outbound'), CUSTOMER, 'to'],
    ['both tracked, outbound', call(TRACKED, TRACKED, 'outbound'), TRACKED, 'to'],
    ['neither tracked, no direction', call(CUSTOMER, '+13105550111', null), CUSTOMER, 'from'],
  ])('%s: the direction decides', (_name, input, number, side) => {
    expect(otherParty(input, isTracked)).toEqual({ number, side, basis: 'direction' });
  });

  it('has no party without numbers', () => {
    expect(otherParty(call(null, 'garbage', 'inbound'), isTracked)).toEqual({ number: null, side: null, basis: 'none' });
  });
});

describe('directionDecidedNote', () => {
  it('is absent for 0 and counts otherwise', () => {
    expect(directionDecidedNote(0)).toBeUndefined();
    expect(directionDecidedNote(3)).toMatchObject({ code: 'party_by_direction', count: 3 });
  });
});
