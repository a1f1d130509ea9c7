import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../sink/sink.js';
import type { Query } from '../../source/walkers/index.js';
import { base, memorySink, offsetList, sourceOf } from '../../../test/support/reconcile-fixtures.js';
import { repairStream } from './repair.js';

describe('repairStream', () => {
  it('stores what is missing, marks deleted what upstream no longer lists, and ends exact', async () => {
    const { fetch } = offsetList(['1', '2', '3', '4', '5']);
    const { sink, live, deleted } = await memorySink(['1', '2', '4', '9']);
    const check = await repairStream({ ...base, source: sourceOf(fetch), sink, repair: true });
    expect(check).toMatchObject({ missing: 2, extra: 1, written: 2, markedDeleted: 1, stored: 5, upstream: 5, verdict: 'ok' });
    expect(live()).toEqual(['1', '2', '3', '4', '5']);
    expect(deleted()).toEqual(['9']);
  });

  it('counts a stored record listed twice once, so a whole walk still proves a deletion', async () => {
    const { fetch } = offsetList(['1', '2', '2', '3'], 3);
    const { sink, deleted } = await memorySink(['1', '2', '3', '9']);
    const check = await repairStream({ ...base, source: sourceOf(fetch), sink, repair: true });
    expect(deleted()).toEqual(['9']);
    expect(check).toMatchObject({ missing: 0, extra: 1, markedDeleted: 1, verdict: 'ok' });
  });

  it('marks nothing deleted when the walk saw fewer distinct records than upstream reported', async () => {
    const warnings: string[] = [];
    // A record listed twice (the list shifted under the walk): 4 listed, 3 distinct ids seen.
    const { fetch } = offsetList(['1', '2', '2', '3']);
    const { sink, deleted } = await memorySink(['1', '9']);
    const check = await repairStream({ ...base, source: sourceOf(fetch), sink, repair: true, onWarning: (m) => warnings.push(m) });
    expect(deleted()).toEqual([]);
    expect(check).toMatchObject({ written: 2, extra: 1, markedDeleted: 0, verdict: 'differs' });
    expect(warnings.join()).toMatch(/saw 3 record\(s\) where upstream reported 4: none marked deleted/);
  });

  it('marks nothing deleted when the walk stops on a broken list', async () => {
    const { fetch } = offsetList(['1', '2', '3'], 9);
    const { sink, deleted } = await memorySink(['1', '9']);
    await expect(repairStream({ ...base, source: sourceOf(fetch), sink, repair: true })).rejects.toThrow(/more records but sent an empty page/);
    expect(deleted()).toEqual([]);
  });

  it('resumes a cut-off repair where it stopped, and marks deletions only after one whole walk', async () => {
    const ids = ['1', '2', '3', '4', '5', '6'];
    const list = offsetList(ids);
    let failAt: number | undefined = 2;
    const fetch = (query: Query): Promise<JsonObject> =>
      Number(query.offset ?? 0) === failAt ? Promise.reject(new Error('connection reset')) : list.fetch(query);
    const { sink, live, deleted, repairWalk } = await memorySink(['9']);
    const warnings: string[] = [];
    const options = { ...base, source: sourceOf(fetch), sink, repair: true, onWarning: (m: string) => warnings.push(m) };

    await expect(repairStream(options)).rejects.toThrow('connection reset');
    expect(live()).toEqual(['1', '2', '9']);
    expect(await repairWalk()).toBeDefined();

    failAt = undefined;
    list.queries.length = 0;
    const resumed = await repairStream(options);
    expect(list.queries[0]).toEqual({ limit: 2, offset: 2 });
    expect(resumed).toMatchObject({ written: 4, markedDeleted: 0, verdict: 'differs' });
    expect(warnings.join()).toMatch(/resumed a walk cut off before/);
    expect(deleted()).toEqual([]);
    expect(await repairWalk()).toBeUndefined();

    const whole = await repairStream(options);
    expect(whole).toMatchObject({ written: 0, markedDeleted: 1, verdict: 'ok' });
    expect(live()).toEqual(ids);
  });

  it('only counts when repair is off', async () => {
    const { fetch } = offsetList(['1', '2', '3']);
    const { sink, live } = await memorySink(['1', '7']);
    expect(await repairStream({ ...base, source: sourceOf(fetch), sink, repair: false })).toMatchObject({
      missing: 2,
      extra: 1,
      written: 0,
      markedDeleted: 0,
      verdict: 'differs',
    });
    expect(live()).toEqual(['1', '7']);
  });
});
