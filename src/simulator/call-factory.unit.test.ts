import { describe, expect, it } from 'vitest';
import { Rng } from './prng.js';
import { parseTimeOrderedId, timeOrderedId } from './call-factory.js';

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
