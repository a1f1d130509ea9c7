import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../sink.js';
import { builtinStreams } from '../sync/builtin-streams.js';
import type { Query } from '../sync/walkers/index.js';
import { checkStream } from './check-stream.js';
import { base, memoryStore, offsetList, sms } from './reconcile-test.fixtures.js';
import { repairStream } from './repair-stream.js';

describe('checkStream', () => {
  it('counts dead letters not stored as accounted for, and asks upstream with one request', async () => {
    const { fetch, queries } = offsetList(['1', '2', '3', '4']);
    const { store } = memoryStore(['1', '2', '3'], ['4', '2']);
    expect(await checkStream({ business: 'acme', descriptor: sms, store, fetch })).toMatchObject({ stored: 4, upstream: 4, difference: 0, verdict: 'ok' });
    expect(queries).toEqual([{ limit: 1, offset: 0 }]);
  });

  it('reports a difference with its sign, and uses a known total without a request', async () => {
    const { fetch, queries } = offsetList([]);
    const { store } = memoryStore(['1', '2']);
    expect(await checkStream({ business: 'acme', descriptor: sms, store, fetch, knownTotal: 5 })).toMatchObject({ difference: 3, verdict: 'differs' });
    expect(await checkStream({ business: 'acme', descriptor: sms, store, fetch, knownTotal: 1 })).toMatchObject({ difference: -1, verdict: 'differs' });
    expect(queries).toEqual([]);
  });

  it('never calls a v2 stream ok: it has no total', async () => {
    const { fetch, queries } = offsetList(['1']);
    const { store } = memoryStore(['1']);
    const voicemails = builtinStreams.get('voicemails')!;
    expect(await checkStream({ business: 'acme', descriptor: voicemails, store, fetch, knownTotal: 1 })).toMatchObject({ upstream: null, verdict: 'not_verifiable' });
    expect(queries).toEqual([]);
  });
});

describe('repairStream', () => {
  it('stores what is missing, marks deleted what upstream no longer lists, and ends exact', async () => {
    const { fetch } = offsetList(['1', '2', '3', '4', '5']);
    const { store, rows, deleted } = memoryStore(['1', '2', '4', '9']);
    const check = await repairStream({ ...base, descriptor: sms, store, fetch, repair: true });
    expect(check).toMatchObject({ missing: 2, extra: 1, written: 2, markedDeleted: 1, stored: 5, upstream: 5, verdict: 'ok' });
    expect([...rows].sort()).toEqual(['1', '2', '3', '4', '5']);
    expect([...deleted]).toEqual(['9']);
  });

  it('counts a stored record listed twice once, so a whole walk still proves a deletion', async () => {
    const { fetch } = offsetList(['1', '2', '2', '3'], 3);
    const { store, deleted } = memoryStore(['1', '2', '3', '9']);
    const check = await repairStream({ ...base, descriptor: sms, store, fetch, repair: true });
    expect([...deleted]).toEqual(['9']);
    expect(check).toMatchObject({ missing: 0, extra: 1, markedDeleted: 1, verdict: 'ok' });
  });

  it('marks nothing deleted when the walk saw fewer distinct records than upstream reported', async () => {
    const warnings: string[] = [];
    // A record listed twice (the list shifted under the walk): 4 listed, 3 distinct ids seen.
    const { fetch } = offsetList(['1', '2', '2', '3']);
    const { store, deleted } = memoryStore(['1', '9']);
    const check = await repairStream({ ...base, descriptor: sms, store, fetch, repair: true, onWarning: (m) => warnings.push(m) });
    expect(deleted.size).toBe(0);
    expect(check).toMatchObject({ written: 2, extra: 1, markedDeleted: 0, verdict: 'differs' });
    expect(warnings.join()).toMatch(/saw 3 record\(s\) where upstream reported 4: none marked deleted/);
  });

  it('marks nothing deleted when the walk stops on a broken list', async () => {
    const { fetch } = offsetList(['1', '2', '3'], 9);
    const { store, deleted } = memoryStore(['1', '9']);
    await expect(repairStream({ ...base, descriptor: sms, store, fetch, repair: true })).rejects.toThrow(/more records but sent an empty page/);
    expect(deleted.size).toBe(0);
  });

  it('resumes a cut-off repair where it stopped, and marks deletions only after one whole walk', async () => {
    const ids = ['1', '2', '3', '4', '5', '6'];
    const list = offsetList(ids);
    let failAt: number | undefined = 2;
    const fetch = (query: Query): Promise<JsonObject> => (Number(query.offset ?? 0) === failAt ? Promise.reject(new Error('connection reset')) : list.fetch(query));
    const { store, rows, deleted, walk } = memoryStore(['9']);
    const warnings: string[] = [];
    const options = { ...base, descriptor: sms, store, fetch, repair: true, onWarning: (m: string) => warnings.push(m) };

    await expect(repairStream(options)).rejects.toThrow('connection reset');
    expect([...rows].sort()).toEqual(['1', '2', '9']);
    expect(walk.position).toBeDefined();

    failAt = undefined;
    list.queries.length = 0;
    const resumed = await repairStream(options);
    expect(list.queries[0]).toEqual({ limit: 2, offset: 2 });
    expect(resumed).toMatchObject({ written: 4, markedDeleted: 0, verdict: 'differs' });
    expect(warnings.join()).toMatch(/resumed a walk cut off before/);
    expect(deleted.size).toBe(0);
    expect(walk.position).toBeUndefined();

    const whole = await repairStream(options);
    expect(whole).toMatchObject({ written: 0, markedDeleted: 1, verdict: 'ok' });
    expect([...rows].sort()).toEqual(ids);
  });

  it('only counts when repair is off', async () => {
    const { fetch } = offsetList(['1', '2', '3']);
    const { store, rows } = memoryStore(['1', '7']);
    expect(await repairStream({ ...base, descriptor: sms, store, fetch, repair: false })).toMatchObject({ missing: 2, extra: 1, written: 0, markedDeleted: 0, verdict: 'differs' });
    expect([...rows].sort()).toEqual(['1', '7']);
  });
});
