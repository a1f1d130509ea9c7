import { describe, expect, it } from 'vitest';
import { chunks } from './chunks.js';

describe('chunks', () => {
  it('splits into parts of at most the size, in order, the last one shorter', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunks([1, 2, 3, 4], 2)).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('gives no part for an empty list', () => {
    expect(chunks([], 3)).toEqual([]);
  });

  it('answers a list that fits as its one part, not a copy; Infinity always fits', () => {
    const items = [1, 2, 3];
    expect(chunks(items, 3)[0]).toBe(items);
    expect(chunks(items, Number.POSITIVE_INFINITY)[0]).toBe(items);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses the size %s, which would never end or split oddly', (size) => {
    expect(() => chunks([1], size)).toThrow(RangeError);
  });
});
