import { describe, expect, it } from 'vitest';
import { parseRange } from './recording-range.js';

describe('parseRange on a body of 1000 bytes', () => {
  it.each([
    ['bytes=0-99', { start: 0, end: 100 }],
    ['bytes=100-', { start: 100, end: 1000 }],
    ['bytes=990-5000', { start: 990, end: 1000 }],
    ['bytes=-10', { start: 990, end: 1000 }],
    ['bytes=-5000', { start: 0, end: 1000 }],
    ['bytes=999-999', { start: 999, end: 1000 }],
    [' bytes=5-9 ', { start: 5, end: 10 }],
  ])('%j → %j', (header, range) => {
    expect(parseRange(header, 1000)).toEqual(range);
  });

  it.each(['bytes=1000-', 'bytes=1000-1001', 'bytes=-0'])('%j is not satisfiable (416)', (header) => {
    expect(parseRange(header, 1000)).toBe('unsatisfiable');
  });

  it.each([undefined, 'bytes=0-1,5-9', 'items=0-9', 'bytes=9-5', 'bytes=-', 'bytes=a-b'])('%j asks for the whole body', (header) => {
    expect(parseRange(header, 1000)).toBeUndefined();
  });
});
