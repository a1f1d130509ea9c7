import { describe, expect, it } from 'vitest';
import { chunk, toPageRecords } from './store-page.js';

describe('toPageRecords', () => {
  it('keeps records in page order, repeats included (the sink collapses them), and dead-letters failures with their reason', () => {
    const page = toPageRecords('acme', 'calls', 'v1', [
      { raw: { id: 'a', v: 1 }, result: { ok: true, id: 'a', fields: { v: 1 } } },
      { raw: { bad: true }, result: { ok: false, reason: 'id: missing' } },
      { raw: { id: 'b' }, result: { ok: true, id: 'b', fields: {} } },
      { raw: { id: 'a', v: 2 }, result: { ok: true, id: 'a', fields: { v: 2 } } },
    ]);
    expect(page.records.map((record) => [record.id, record.fields])).toEqual([
      ['a', { v: 1 }],
      ['b', {}],
      ['a', { v: 2 }],
    ]);
    expect(page.records[1]).toMatchObject({ businessId: 'acme', source: 'v1', raw: { id: 'b' } });
    expect(page.deadLetters).toEqual([{ businessId: 'acme', stream: 'calls', reason: 'id: missing', raw: { bad: true } }]);
  });
});

describe('chunk', () => {
  it('splits into parts of at most the size, and an empty list into one empty part', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunk([], 3)).toEqual([[]]);
  });
});
