import { describe, expect, it } from 'vitest';
import type { ListOrder } from './call-list.js';
import { CallList } from './call-list.js';
import { CallStore } from './call-store.js';
import { makeNumbers } from './numbers.js';
import { Rng } from './prng.js';

function store(count: number): CallStore {
  const ctx = { businessSeed: 5, numbers: makeNumbers(5, 3), userFolder: 'u', v2UuidBase: 1, initialCount: count };
  return new CallStore(ctx, () => '{}');
}

describe.each(['oldest', 'newest'] as ListOrder[])('CallList (%s first) with many deleted slots', (order) => {
  const calls = store(400);
  const rng = new Rng(9);
  const ids = Array.from({ length: 400 }, (_, i) => calls.model(i).id);
  for (const id of ids) if (rng.chance(0.4)) calls.delete(id);
  // The naive model: live slots in serving order.
  const live = ids.map((_, i) => i).filter((i) => !calls.isDeleted(i));
  const served = order === 'oldest' ? live : [...live].reverse();
  const list = new CallList(calls, order);

  it('offsets count live calls from the head', () => {
    expect(list.total).toBe(live.length);
    for (const [offset, limit] of [
      [0, 7],
      [13, 50],
      [live.length - 3, 10],
      [live.length, 5],
    ] as const) {
      expect(list.atOffset(offset, limit)).toEqual(served.slice(offset, offset + limit));
    }
  });

  it('a cursor walk of any page size serves every live call once, has_more false only at the end', () => {
    for (const limit of [1, 9, 64, 1000]) {
      const walked: number[] = [];
      let position = list.start;
      for (;;) {
        const slice = list.fromCursor(position, limit);
        walked.push(...slice.slots);
        expect(slice.hasMore).toBe(walked.length < served.length);
        if (!slice.hasMore) break;
        position = slice.next;
      }
      expect(walked).toEqual(served);
    }
  });
});
