import { describe, expect, it } from 'vitest';
import { makeCall } from './call-factory.js';
import { makeNumbers } from './numbers.js';
import { callV1, callV1Json } from './render.js';

describe('callV1Json', () => {
  const numbers = makeNumbers(42, 5);
  const options = { recordingsBaseUrl: 'https://media.example', v2NumbersAsNumbers: 0, businessSeed: 42, v2FractionalUuid: false };
  const ctx = { businessSeed: 42, numbers, userFolder: 'user-1', v2UuidBase: 1, initialCount: 500 };

  it('is byte-identical to JSON.stringify of the v1 object', () => {
    for (let i = 0; i < 500; i++) {
      const call = makeCall(ctx, i, 1_740_000_000 + i, 0, undefined);
      expect(callV1Json(call, options)).toBe(JSON.stringify(callV1(call, options)));
    }
  });

  it('escapes a transcription with quotes, backslashes and newlines', () => {
    const call = makeCall(ctx, 1, 1_740_000_000, 0, { transcription: 'He said "hi"\\\n\u2028ok', updatedAtSec: 1_740_000_100 });
    expect(JSON.parse(callV1Json(call, options))).toEqual(callV1(call, options));
  });
});
