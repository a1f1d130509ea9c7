import { describe, expect, it } from 'vitest';
import { streamStatus } from '../../support/status-fixtures.js';
import type { StatusStore } from '../../../src/engine/state/index.js';

/** A store built for one test, with a clock the test controls. */
export type MakeStatusStore = (now: () => number) => Promise<StatusStore>;

const T0 = Date.parse('2024-05-01T12:00:30.000Z');

/** The behaviour every StatusStore implementation shares; run against memory and Redis. */
export function describeStatusStoreContract(name: string, make: MakeStatusStore): void {
  describe(`${name} status store (shared contract)`, () => {
    async function setup(): Promise<{ store: StatusStore; clock: { ms: number } }> {
      const clock = { ms: T0 };
      return { store: await make(() => clock.ms), clock };
    }

    it('knows nothing before the first update', async () => {
      const { store } = await setup();
      expect(await store.get('acme', 'calls')).toBeUndefined();
      expect(await store.list()).toEqual([]);
      expect(await store.failedBusinesses()).toEqual({});
    });

    it('creates a status with defaults on first update and returns the result', async () => {
      const { store } = await setup();
      const status = await store.update('acme', 'calls', { state: 'syncing', lastRunAt: '2024-05-01T12:00:00.000Z' });
      expect(status).toEqual(streamStatus({ state: 'syncing', lastRunAt: '2024-05-01T12:00:00.000Z', updatedAt: new Date(T0).toISOString() }));
      expect(await store.get('acme', 'calls')).toEqual(status);
    });

    it('keeps omitted fields, clears fields set to null, and stamps updatedAt every time', async () => {
      const { store, clock } = await setup();
      const budget = { limit: 60, usedThisWindow: 12, resetAt: '2024-05-01T12:01:00.000Z' };
      await store.update('acme', 'calls', { state: 'failed', lastError: 'upstream 500', warning: 'gap?', budget });
      clock.ms += 5_000;
      await store.update('acme', 'calls', { lastError: null });
      const status = await store.get('acme', 'calls');
      expect(status).toMatchObject({ state: 'failed', lastError: null, warning: 'gap?', budget });
      expect(status?.updatedAt).toBe(new Date(T0 + 5_000).toISOString());
      await store.update('acme', 'calls', { budget: null, warning: null, state: 'idle' });
      expect(await store.get('acme', 'calls')).toMatchObject({ state: 'idle', warning: null, budget: null });
    });

    it('keeps a reconciliation difference of either sign, and clears it with null', async () => {
      const { store } = await setup();
      expect(await store.update('acme', 'calls', { state: 'drift', difference: -4 })).toMatchObject({ state: 'drift', difference: -4 });
      expect(await store.update('acme', 'calls', { difference: 12 })).toMatchObject({ difference: 12 });
      expect(await store.update('acme', 'calls', { difference: null })).toMatchObject({ difference: null });
      await expect(store.update('acme', 'calls', { difference: 0.5 })).rejects.toThrow(/difference must be an integer/);
    });

    it('sets counters, then adds increments, and loses no increment under concurrency', async () => {
      const { store } = await setup();
      await store.update('acme', 'calls', { recordsSynced: 1000, increment: { recordsSynced: 5, pages: 2 } });
      expect(await store.get('acme', 'calls')).toMatchObject({ recordsSynced: 1005, pages: 2, deadLetters: 0 });
      await Promise.all(Array.from({ length: 50 }, () => store.update('acme', 'calls', { increment: { recordsSynced: 3, pages: 1, deadLetters: 1 } })));
      expect(await store.get('acme', 'calls')).toMatchObject({ recordsSynced: 1155, pages: 52, deadLetters: 50 });
    });

    it('computes lag on read from lastSuccessAt, so it grows while nobody writes', async () => {
      const { store, clock } = await setup();
      await store.update('acme', 'calls', { lastSuccessAt: new Date(T0 - 30_000).toISOString() });
      expect((await store.get('acme', 'calls'))?.lagSeconds).toBe(30);
      clock.ms += 90_000;
      expect((await store.get('acme', 'calls'))?.lagSeconds).toBe(120);
      expect((await store.list())[0]?.lagSeconds).toBe(120);
    });

    it('rejects invalid patches without writing anything', async () => {
      const { store } = await setup();
      await expect(store.update('acme', 'calls', { increment: { pages: -1 } })).rejects.toThrow(/pages/);
      await expect(store.update('acme', 'calls', { recordsSynced: 1.5 })).rejects.toThrow(/recordsSynced/);
      await expect(store.update('acme', 'calls', { lastSuccessAt: 'yesterday' })).rejects.toThrow(/lastSuccessAt/);
      expect(await store.get('acme', 'calls')).toBeUndefined();
    });

    it('lists every stream sorted by business then stream; names with separators never collide', async () => {
      const { store } = await setup();
      await store.update('b:c', 'x', { increment: { pages: 1 } });
      await store.update('b', 'c:x', { increment: { pages: 2 } });
      await store.update('acme', 'voicemails', {});
      await store.update('acme', 'calls', {});
      const listed = await store.list();
      expect(listed.map((s) => [s.business, s.stream, s.pages])).toEqual([
        ['acme', 'calls', 0],
        ['acme', 'voicemails', 0],
        ['b', 'c:x', 2],
        ['b:c', 'x', 1],
      ]);
      await store.remove('acme', 'calls');
      await store.remove('nobody', 'calls');
      expect((await store.list()).map((s) => s.stream)).toEqual(['voicemails', 'c:x', 'x']);
      expect(await store.get('acme', 'calls')).toBeUndefined();
    });

    it("reads every stream's gauges as list() has them, lag at the same instant, removed streams left out", async () => {
      const { store, clock } = await setup();
      await store.update('acme', 'calls', { state: 'drift', difference: -4, lastSuccessAt: new Date(T0 - 30_000).toISOString() });
      await store.update('acme', 'numbers', { state: 'failed', lastError: 'upstream 500' });
      await store.update('b:c', 'x', { state: 'idle', difference: 0, lastSuccessAt: new Date(T0).toISOString() });
      await store.update('gone', 'calls', { state: 'idle' });
      await store.remove('gone', 'calls');
      clock.ms += 90_000;
      const byName = (a: { business: string; stream: string }, b: { business: string; stream: string }): number =>
        `${a.business}/${a.stream}`.localeCompare(`${b.business}/${b.stream}`);
      const gauges = [...(await store.gauges())].sort(byName);
      expect(gauges).toEqual([
        { business: 'acme', stream: 'calls', state: 'drift', lagSeconds: 120, difference: -4 },
        { business: 'acme', stream: 'numbers', state: 'failed', lagSeconds: null, difference: null },
        { business: 'b:c', stream: 'x', state: 'idle', lagSeconds: 90, difference: 0 },
      ]);
      expect(gauges).toEqual(
        (await store.list()).map(({ business, stream, state, lagSeconds, difference }) => ({ business, stream, state, lagSeconds, difference })),
      );
    });

    it('counts activity per business per minute, zero-filled from the minute of sinceMs to now', async () => {
      const { store, clock } = await setup();
      await store.recordActivity('acme', 10, T0 - 120_000);
      await store.recordActivity('acme', 5, T0 - 100_000);
      await store.recordActivity('acme', 7, T0);
      await store.recordActivity('other', 99, T0);
      await Promise.all(Array.from({ length: 20 }, () => store.recordActivity('acme', 1, T0)));
      clock.ms += 60_000;
      expect(await store.activity('acme', T0 - 150_000)).toEqual([
        { minute: '2024-05-01T11:58Z', records: 15 },
        { minute: '2024-05-01T11:59Z', records: 0 },
        { minute: '2024-05-01T12:00Z', records: 27 },
        { minute: '2024-05-01T12:01Z', records: 0 },
      ]);
      expect(await store.activity('nobody', T0)).toEqual([
        { minute: '2024-05-01T12:00Z', records: 0 },
        { minute: '2024-05-01T12:01Z', records: 0 },
      ]);
      await expect(store.recordActivity('acme', -1, T0)).rejects.toThrow(RangeError);
    });

    it('reports at most the retained two hours of activity, oldest first', async () => {
      const { store, clock } = await setup();
      await store.recordActivity('acme', 4, T0);
      clock.ms += 3 * 3_600_000;
      const buckets = await store.activity('acme', 0);
      expect(buckets).toHaveLength(120);
      expect(buckets.at(-1)?.minute).toBe('2024-05-01T15:00Z');
      expect(buckets.every((b) => b.records === 0)).toBe(true);
    });

    it('marks, overwrites and clears failed businesses', async () => {
      const { store } = await setup();
      await store.markBusinessFailed('zeta', 'upstream 401: invalid API key');
      await store.markBusinessFailed('acme', 'upstream 403');
      await store.markBusinessFailed('acme', 'upstream 401');
      expect(await store.failedBusinesses()).toEqual({ acme: 'upstream 401', zeta: 'upstream 401: invalid API key' });
      expect(Object.keys(await store.failedBusinesses())).toEqual(['acme', 'zeta']);
      await store.clearBusinessFailed('acme');
      await store.clearBusinessFailed('nobody');
      expect(await store.failedBusinesses()).toEqual({ zeta: 'upstream 401: invalid API key' });
      expect(await store.failedReason('zeta')).toBe('upstream 401: invalid API key');
      expect(await store.failedReason('acme')).toBeUndefined();
    });

    it('writes a patch without reading back exactly as update applies it', async () => {
      const { store } = await setup();
      await store.write('acme', 'calls', { state: 'syncing', lastRunAt: '2024-05-01T12:00:00.000Z', lastError: 'old', increment: { pages: 2 } });
      await store.write('acme', 'calls', { state: 'idle', lastError: null, increment: { pages: 1 } });
      expect(await store.get('acme', 'calls')).toMatchObject({ state: 'idle', lastRunAt: '2024-05-01T12:00:00.000Z', lastError: null, pages: 3 });
      expect((await store.list()).map((s) => s.stream)).toEqual(['calls']);
      await expect(store.write('acme', 'calls', { pages: -1 })).rejects.toThrow(RangeError);
    });

    it('writes several streams in order in one call, and nothing when one patch is invalid', async () => {
      const { store } = await setup();
      await store.writeMany([
        { business: 'acme', stream: 'calls', patch: { state: 'syncing', lastError: 'old', increment: { pages: 1 } } },
        { business: 'acme', stream: 'numbers', patch: { state: 'idle' } },
        { business: 'acme', stream: 'calls', patch: { state: 'idle', lastError: null, increment: { pages: 2 } } },
      ]);
      expect(await store.get('acme', 'calls')).toMatchObject({ state: 'idle', lastError: null, pages: 3 });
      expect((await store.list()).map((s) => s.stream)).toEqual(['calls', 'numbers']);
      await expect(
        store.writeMany([
          { business: 'acme', stream: 'voicemails', patch: {} },
          { business: 'acme', stream: 'calls', patch: { pages: -1 } },
        ]),
      ).rejects.toThrow(RangeError);
      expect(await store.get('acme', 'voicemails')).toBeUndefined();
      await store.writeMany([]);
    });
  });
}
