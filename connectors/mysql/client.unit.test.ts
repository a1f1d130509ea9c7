import { describe, expect, it } from 'vitest';
import { changedRows } from './client.js';

describe('changedRows: the rows an insert … on duplicate key update inserted or changed (FOUND_ROWS off)', () => {
  it('reads a multi-row statement as affected rows less the changed duplicates its info names', () => {
    // 3 inserted (1 each) and 2 changed (2 each); unchanged duplicates count 0 and are not in Duplicates.
    expect(changedRows({ affectedRows: 7, info: 'Records: 6  Duplicates: 2  Warnings: 0' })).toBe(5);
    expect(changedRows({ affectedRows: 0, info: 'Records: 4  Duplicates: 0  Warnings: 0' })).toBe(0);
  });

  it('reads a one-row statement, which has no info: 1 inserted, 2 changed, 0 unchanged', () => {
    expect([1, 2, 0].map((affectedRows) => changedRows({ affectedRows, info: '' }))).toEqual([1, 1, 0]);
  });
});
