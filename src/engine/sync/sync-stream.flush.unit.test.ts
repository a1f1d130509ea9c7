/** syncStream with a sink that declares flush limits: pages gathered into one write. */
import { setImmediate } from 'node:timers/promises';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ManagedSink } from '../../sink/managed-sink.js';
import { MemoryStateStore } from '../../../test/fakes/memory-state-store.js';
import type { Batch, FlushLimits, JsonObject, Sink } from '../../sink/sink.js';
import type { PageClient } from '../../source/walkers/index.js';
import { client, list, normalizeContext, sms, sourceOf, upstream } from '../../../test/support/sync-stream-fixtures.js';
import { syncStream } from './sync-stream.js';
import type { SyncEvent } from './sync-event.js';

const logger = pino({ level: 'silent' });

describe('syncStream, pages gathered into flushes', () => {
  /** A sink over `store` that declares `flush` and `maxBatchSize`, keeps every write, and fails the writes numbered in `failing`. */
  function flushingSink(store: MemoryStateStore, flush: FlushLimits, options: { maxBatchSize?: number; failing?: readonly number[] } = {}) {
    const inner = new ManagedSink({ type: 'memory', store }, logger);
    const writes: { ids: string[]; deadLetters: number; offset: unknown }[] = [];
    const sink: Sink = Object.assign(Object.create(inner) as Sink, {
      capabilities: { ...inner.capabilities, maxBatchSize: options.maxBatchSize ?? 500, flush },
      write: (batch: Batch, position: JsonObject) => {
        writes.push({ ids: batch.records.map((record) => record.id), deadLetters: batch.deadLetters.length, offset: position.offset });
        if (options.failing?.includes(writes.length) === true) return Promise.reject(new Error('connection lost'));
        return inner.write(batch, position);
      },
    });
    return { sink, writes };
  }

  /** The offsets asked for, and the pages of `count` records two at a time. */
  function listed(count: number, asked: number[] = []): PageClient {
    return client((_, query) => {
      asked.push(Number(query.offset ?? 0));
      return Promise.resolve(list('sms', count)(query));
    });
  }

  it('writes the pages gathered up to maxRows in one write, in order, with the last page position, and tells each page once stored', async () => {
    const store = new MemoryStateStore();
    const { sink, writes } = flushingSink(store, { maxRows: 4, maxMs: Number.POSITIVE_INFINITY });
    const events: SyncEvent[] = [];
    const result = await syncStream({ businessId: 'acme', source: sourceOf(sms, listed(10)), sink, normalizeContext, onEvent: (e) => events.push(e) });
    expect(writes).toEqual([
      { ids: ['r0', 'r1', 'r2', 'r3'], deadLetters: 0, offset: 4 },
      { ids: ['r4', 'r5', 'r6', 'r7'], deadLetters: 0, offset: 8 },
      // The end of the stream writes what is gathered.
      { ids: ['r8', 'r9'], deadLetters: 0, offset: 10 },
    ]);
    expect(result).toMatchObject({ stopped: false, pages: 5, records: 10, written: 10, unchanged: 0 });
    const stored = events.flatMap((e) => (e.type === 'page-stored' ? [[e.page.records, e.page.written]] : []));
    expect(stored).toEqual([
      [2, 2],
      [2, 2],
      [2, 2],
      [2, 2],
      [2, 2],
    ]);
    expect(store.rows.size).toBe(10);
  });

  it('after a crash in the middle of a flush, fetches again only the pages not stored', async () => {
    const store = new MemoryStateStore();
    // Parts of 3 records: the first completes page 1 (r0, r1) and so moves the checkpoint past it; the second fails.
    const crashing = flushingSink(store, { maxRows: 4, maxMs: Number.POSITIVE_INFINITY }, { maxBatchSize: 3, failing: [2] });
    const tally = { pages: 0, records: 0, written: 0, unchanged: 0, deadLettered: 0 };
    await expect(syncStream({ businessId: 'acme', source: sourceOf(sms, listed(10)), sink: crashing.sink, normalizeContext, tally })).rejects.toThrow(
      'connection lost',
    );
    expect(crashing.writes.map((write) => [write.ids, write.offset])).toEqual([
      [['r0', 'r1', 'r2'], 2],
      [['r3'], 4],
    ]);
    expect((await store.checkpoints.load('acme', 'sms'))?.position).toMatchObject({ offset: 2 });
    // The page the stored part completed is counted; the page cut in two is not.
    expect(tally).toMatchObject({ pages: 1, records: 2 });

    const asked: number[] = [];
    const rerun = flushingSink(store, { maxRows: 4, maxMs: Number.POSITIVE_INFINITY });
    await syncStream({ businessId: 'acme', source: sourceOf(sms, listed(10, asked)), sink: rerun.sink, normalizeContext });
    expect(asked[0]).toBe(2);
    expect(rerun.writes[0]?.ids).toEqual(['r2', 'r3', 'r4', 'r5']);
    expect([...store.rows.keys()].sort()).toEqual(Array.from({ length: 10 }, (_, i) => `acme/sms/r${i}`).sort());
  });

  it("keeps one row per id, a later page's version, and every page's dead letters", async () => {
    const store = new MemoryStateStore();
    const { sink, writes } = flushingSink(store, { maxRows: 100, maxMs: Number.POSITIVE_INFINITY });
    const pages: JsonObject[] = [
      { sms: [{ id: 'x', body: 'first' }, { bad: 1 }], has_more: true },
      { sms: [{ id: 'y' }, { id: 'x', body: 'second' }, { bad: 2 }], has_more: true },
      { sms: [], has_more: false },
    ];
    const events: SyncEvent[] = [];
    const result = await syncStream({
      businessId: 'acme',
      source: sourceOf(
        sms,
        client((_, query) => Promise.resolve(pages[[0, 2, 5].indexOf(Number(query.offset ?? 0))] as JsonObject)),
      ),
      sink,
      normalizeContext,
      onEvent: (e) => events.push(e),
    });
    expect(writes).toEqual([{ ids: ['x', 'y', 'x'], deadLetters: 2, offset: 5 }]);
    expect((store.rows.get('acme/sms/x')?.record.raw as JsonObject).body).toBe('second');
    expect(store.letters.map((letter) => letter.raw)).toEqual([{ bad: 1 }, { bad: 2 }]);
    expect(result).toMatchObject({ pages: 3, records: 5, written: 2, deadLettered: 2 });
    expect(events.flatMap((e) => (e.type === 'page-stored' ? [[e.page.records, e.page.written, e.page.deadLettered]] : []))).toEqual([
      [2, 1, 1],
      [3, 1, 1],
      [0, 0, 0],
    ]);
  });

  it('stores the gathered pages when the signal stops the run, then stops', async () => {
    const controller = new AbortController();
    const store = new MemoryStateStore();
    const { sink, writes } = flushingSink(store, { maxRows: Number.POSITIVE_INFINITY, maxMs: Number.POSITIVE_INFINITY });
    const hang = upstream(controller.signal, 3);
    let requests = 0;
    const pages = client(async (path, query) => {
      const answer = hang.get('v1', path, query);
      // The third request is in flight when the stop comes; pages 1 and 2 are gathered, none written.
      if (++requests === 3) controller.abort();
      return (await answer).payload;
    });
    const result = await syncStream({ businessId: 'acme', source: sourceOf(sms, pages), sink, normalizeContext, signal: controller.signal });
    expect(writes).toEqual([{ ids: ['r0', 'r1', 'r2', 'r3'], deadLetters: 0, offset: 4 }]);
    expect(result).toMatchObject({ stopped: true, pages: 2, records: 4, written: 4 });
    expect((await store.checkpoints.load('acme', 'sms'))?.position).toMatchObject({ offset: 4 });
  });

  it('reading ahead, reads and normalizes the next flush while the last one is written', async () => {
    const asked: number[] = [];
    const store = new MemoryStateStore();
    const { sink, writes } = flushingSink(store, { maxRows: 4, maxMs: Number.POSITIVE_INFINITY });
    const inner = sink.write.bind(sink);
    // The first flush (offsets 0 and 2) is stored only once the page after the next one is asked for.
    sink.write = async (batch, position) => {
      if (writes.length === 0) while (!asked.includes(6)) await setImmediate();
      return inner(batch, position);
    };
    const events: SyncEvent[] = [];
    const result = await syncStream({ businessId: 'acme', source: sourceOf(sms, listed(10, asked)), sink, normalizeContext, onEvent: (e) => events.push(e) });
    expect(writes.map((write) => [write.ids.length, write.offset])).toEqual([
      [4, 4],
      [4, 8],
      [2, 10],
    ]);
    expect(result).toMatchObject({ stopped: false, pages: 5, records: 10, written: 10 });
    expect(events.filter((e) => e.type === 'page-stored')).toHaveLength(5);
  });

  it('stores the gathered pages before a failed read fails the run', async () => {
    const store = new MemoryStateStore();
    const { sink, writes } = flushingSink(store, { maxRows: Number.POSITIVE_INFINITY, maxMs: Number.POSITIVE_INFINITY });
    let requests = 0;
    const pages = client((_, query) => (++requests === 3 ? Promise.reject(new Error('socket hang up')) : Promise.resolve(list('sms', 10)(query))));
    const tally = { pages: 0, records: 0, written: 0, unchanged: 0, deadLettered: 0 };
    await expect(syncStream({ businessId: 'acme', source: sourceOf(sms, pages), sink, normalizeContext, tally })).rejects.toThrow('socket hang up');
    expect(writes).toEqual([{ ids: ['r0', 'r1', 'r2', 'r3'], deadLetters: 0, offset: 4 }]);
    expect(tally).toMatchObject({ pages: 2, records: 4, written: 4 });
    expect((await store.checkpoints.load('acme', 'sms'))?.position).toMatchObject({ offset: 4 });
  });

  it('writes the gathered pages once maxMs has passed while the next page is awaited', async () => {
    const { sink, writes } = flushingSink(new MemoryStateStore(), { maxRows: Number.POSITIVE_INFINITY, maxMs: 1 });
    let requests = 0;
    // The second page is answered only once the first is written: only the flush's time can write it.
    const pages = client(async (_, query) => {
      if (++requests === 2) while (writes.length === 0) await setImmediate();
      return list('sms', 4)(query);
    });
    await syncStream({ businessId: 'acme', source: sourceOf(sms, pages), sink, normalizeContext });
    expect(writes.map((write) => [write.ids, write.offset])).toEqual([
      [['r0', 'r1'], 2],
      [['r2', 'r3'], 4],
    ]);
  });

  it('writes when a page arrives maxMs after the first gathered one', async () => {
    let clock = 0;
    const { sink, writes } = flushingSink(new MemoryStateStore(), { maxRows: Number.POSITIVE_INFINITY, maxMs: 1000 });
    const pages = client((_, query) => {
      // Pages 1 and 2 come at once; page 3 comes two seconds on.
      if (Number(query.offset) === 4) clock += 2000;
      return Promise.resolve(list('sms', 8)(query));
    });
    await syncStream({ businessId: 'acme', source: sourceOf(sms, pages), sink, normalizeContext, readAhead: 0, now: () => clock });
    expect(writes.map((write) => [write.ids, write.offset])).toEqual([
      [['r0', 'r1', 'r2', 'r3', 'r4', 'r5'], 6],
      [['r6', 'r7'], 8],
    ]);
  });

  it('writes nothing for an idle poll: an empty page at the stored position', async () => {
    const store = new MemoryStateStore();
    await syncStream({ businessId: 'acme', source: sourceOf(sms, listed(4)), sink: flushingSink(store, ONE_FLUSH).sink, normalizeContext });
    const { sink, writes } = flushingSink(store, ONE_FLUSH);
    const events: SyncEvent[] = [];
    const result = await syncStream({ businessId: 'acme', source: sourceOf(sms, listed(4)), sink, normalizeContext, onEvent: (e) => events.push(e) });
    expect(writes).toEqual([]);
    expect(result).toMatchObject({ pages: 1, records: 0, written: 0 });
    expect(events.filter((e) => e.type === 'page-stored')).toHaveLength(1);
  });
});

const ONE_FLUSH: FlushLimits = { maxRows: 1000, maxMs: Number.POSITIVE_INFINITY };
