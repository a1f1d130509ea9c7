import { describe, expect, it } from 'vitest';
import { Rng } from './prng.js';
import { makeCall, parseTimeOrderedId, timeOrderedId } from './call-factory.js';
import { makeNumbers } from './numbers.js';

describe('timeOrderedId', () => {
  it('sorts as strings in (created_at, sequence) order and reads back both', () => {
    const rng = new Rng(3);
    const keys: [number, number][] = [
      [1_740_000_000, 0],
      [1_740_000_000, 1],
      [1_740_000_000, 4095],
      [1_740_000_001, 0],
      [4_000_000_000, 2],
    ];
    const ids = keys.map(([sec, seq]) => timeOrderedId(sec, seq, rng));
    expect([...ids].sort()).toEqual(ids);
    expect(ids.map((id) => parseTimeOrderedId(id))).toEqual(keys.map(([createdAtSec, seq]) => ({ createdAtSec, seq })));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('rejects ids it did not make', () => {
    expect(parseTimeOrderedId('not-an-id')).toBeUndefined();
    expect(parseTimeOrderedId('3b241101-e2bb-4255-8caf-4136c566a962')).toBeUndefined();
  });
});

describe('makeCall outboundToNumber', () => {
  const numbers = makeNumbers(7, 3);
  const tracked = new Set(numbers.map((number) => number.number));
  const ctx = { businessSeed: 7, numbers, userFolder: 'u', v2UuidBase: 1, initialCount: 200 };
  const calls = (outboundToNumber?: 'customer' | 'tracked') =>
    Array.from({ length: 200 }, (_, index) =>
      makeCall({ ...ctx, ...(outboundToNumber === undefined ? {} : { outboundToNumber }) }, index, 1_740_000_000 + index, 0, undefined),
    );

  it('puts the tracked number in to_number of every call under `tracked`, the customer in from_number', () => {
    const played = calls('tracked');
    expect(played.some((call) => call.direction === 'outbound')).toBe(true);
    for (const call of played) {
      expect(tracked.has(call.toNumber)).toBe(true);
      expect(tracked.has(call.fromNumber)).toBe(false);
    }
  });

  it('sends outbound calls from the tracked number to the customer by default, the rest of the call unchanged', () => {
    const byDefault = calls();
    const literal = calls('tracked');
    for (const [index, call] of byDefault.entries()) {
      const other = literal[index];
      expect(tracked.has(call.fromNumber)).toBe(call.direction === 'outbound');
      expect({ ...call, toNumber: '', fromNumber: '' }).toEqual({ ...other, toNumber: '', fromNumber: '' });
      expect(new Set([call.toNumber, call.fromNumber])).toEqual(new Set([other?.toNumber, other?.fromNumber]));
    }
    expect(calls('customer')).toEqual(byDefault);
  });
});
