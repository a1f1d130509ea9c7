import { describe, expect, it } from 'vitest';
import { normalizePage } from './page.js';
import { normalizeV1Generic } from './records.js';

const context = { recordingsBaseUrl: 'https://calls.example.com', v2TimeZone: 'UTC' };
const normalize = normalizeV1Generic('id');

describe('normalizePage', () => {
  it('keeps records in page order, repeats included (the sink collapses them), and dead-letters failures with their reason', () => {
    const page = normalizePage([{ id: 'a', v: 1 }, { bad: true }, { id: 'b' }, { id: 'a', v: 2 }], normalize, context, 'acme', 'calls', 'v1');
    expect(page.records.map((record) => [record.id, record.raw])).toEqual([
      ['a', { id: 'a', v: 1 }],
      ['b', { id: 'b' }],
      ['a', { id: 'a', v: 2 }],
    ]);
    expect(page.records[1]).toMatchObject({ businessId: 'acme', source: 'v1', fields: { created_at: null } });
    expect(page.deadLetters).toEqual([{ businessId: 'acme', stream: 'calls', reason: 'id: missing', raw: { bad: true } }]);
    expect(page.repeatsAnId).toBe(true);
  });

  it('says no id repeats on a page of distinct ids, dead letters aside', () => {
    expect(normalizePage([{ id: 'a' }, { nothing: 1 }, { id: 'b' }, { nothing: 2 }], normalize, context, 'acme', 'calls', 'v1').repeatsAnId).toBe(false);
    expect(normalizePage([], normalize, context, 'acme', 'calls', 'v1')).toEqual({ records: [], deadLetters: [], repeatsAnId: false });
  });
});
