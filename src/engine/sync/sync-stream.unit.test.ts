import { setImmediate } from 'node:timers/promises';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ManagedSink } from '../../sink/managed-sink.js';
import { MemoryStateStore } from '../../../test/fakes/memory-state-store.js';
import type { Batch, JsonObject, Sink, WriteResult } from '../../sink/sink.js';
import { client, forms, list, normalizeContext, sms, sourceOf, upstream } from '../../../test/support/sync-stream-fixtures.js';
import { syncStream } from './sync-stream.js';
import { syncBusiness } from './sync-business.js';
import type { SyncEvent } from './sync-event.js';

const logger = pino({ level: 'silent' });

/** A sink that aborts `controller` a turn after its `pages`-th write: the next request is then in flight, no page in hand. */
class AbortingSink extends ManagedSink {
  #writes = 0;
  constructor(
    readonly store: MemoryStateStore,
    readonly controller: AbortController,
    readonly pages: number,
  ) {
    super({ type: 'memory', store }, logger);
  }

  override async write(batch: Batch, position: JsonObject): Promise<WriteResult> {
    const result = await super.write(batch, position);
    if (++this.#writes === this.pages) void setImmediate().then(() => this.controller.abort());
    return result;
  }
}

describe('syncStream stops', () => {
  it('returns stopped with what it stored when the signal aborts a request in flight, not a failure', async () => {
    const controller = new AbortController();
    const store = new MemoryStateStore();
    const sink = new AbortingSink(store, controller, 2);
    const events: SyncEvent[] = [];
    // Requests 1 and 2 are pages 1 and 2 (one page ahead); request 3 is in flight when the stop comes.
    const result = await syncStream({
      businessId: 'acme',
      source: sourceOf(sms, upstream(controller.signal, 3)),
      sink,
      normalizeContext,
      signal: controller.signal,
      onEvent: (e) => events.push(e),
    });
    expect(result).toMatchObject({ stopped: true, pages: 2, records: 4, written: 4 });
    expect(store.rows.size).toBe(4);
    expect((await sink.checkpoints.load('acme', 'sms'))?.position).toMatchObject({ offset: 4 });
    expect(events.map((e) => e.type)).toEqual(['stream-start', 'page-stored', 'page-stored']);
  });

  it('still fails on an error when its signal was not aborted', async () => {
    const sink = new ManagedSink({ type: 'memory', store: new MemoryStateStore() }, logger);
    let requests = 0;
    const pages = client((_, query) => (++requests === 2 ? Promise.reject(new Error('socket hang up')) : Promise.resolve(list('sms', 10)(query))));
    await expect(
      syncStream({ businessId: 'acme', source: sourceOf(sms, pages), sink, normalizeContext, signal: new AbortController().signal }),
    ).rejects.toThrow('socket hang up');
  });

  it('tells the stream start and each stored page as events, in order', async () => {
    const sink = new ManagedSink({ type: 'memory', store: new MemoryStateStore() }, logger);
    const events: SyncEvent[] = [];
    const pages = client((_, query) => Promise.resolve(list('sms', 3)(query)));
    const result = await syncStream({ businessId: 'acme', source: sourceOf(sms, pages), sink, normalizeContext, onEvent: (e) => events.push(e) });
    expect(result).toMatchObject({ stopped: false, pages: 2, records: 3 });
    expect(events).toEqual([
      { type: 'stream-start', businessId: 'acme', stream: 'sms' },
      { type: 'page-stored', page: { businessId: 'acme', stream: 'sms', records: 2, written: 2, deadLettered: 0, total: 3 } },
      { type: 'page-stored', page: { businessId: 'acme', stream: 'sms', records: 1, written: 1, deadLettered: 0, total: 3 } },
    ]);
  });
});

describe('syncBusiness stops', () => {
  it('ends the stream cut off mid-request and every stream after it as stopped, and says so in business-end', async () => {
    const controller = new AbortController();
    const sink = new AbortingSink(new MemoryStateStore(), controller, 2);
    const events: SyncEvent[] = [];
    const pages = upstream(controller.signal, 3);
    const outcome = await syncBusiness({
      plan: { name: 'acme', normalizeContext },
      sources: [sourceOf(sms, pages), sourceOf(forms, pages)],
      sink,
      signal: controller.signal,
      onEvent: (e) => events.push(e),
    });
    expect(outcome.failure).toBeUndefined();
    expect(outcome.streams.map((s) => [s.stream, s.failure, s.result?.stopped, s.result?.records, s.result?.pages])).toEqual([
      ['sms', undefined, true, 4, 2],
      ['forms', undefined, true, 0, 0],
    ]);
    expect(events.at(-1)).toEqual({ type: 'business-end', outcome });
    expect(events.filter((e) => e.type === 'stream-start')).toHaveLength(1);
  });
});

describe('syncBusiness failures', () => {
  it('keeps what a failed stream stored before it failed, and goes on with the next stream', async () => {
    const sink = new ManagedSink({ type: 'memory', store: new MemoryStateStore() }, logger);
    let smsRequests = 0;
    const pages = client((path, query) => {
      if (path === sms.path && ++smsRequests === 3) return Promise.reject(new Error('socket hang up'));
      return Promise.resolve(list(path === sms.path ? sms.recordsKey : forms.recordsKey, 6)(query));
    });
    const outcome = await syncBusiness({ plan: { name: 'acme', normalizeContext }, sources: [sourceOf(sms, pages), sourceOf(forms, pages)], sink });
    expect(outcome.streams.map((s) => [s.stream, s.failure?.kind, s.result?.pages, s.result?.written, s.result?.stopped])).toEqual([
      ['sms', 'internal', 2, 4, false],
      ['forms', undefined, 3, 6, false],
    ]);
  });
});

describe('syncStream, one page after another', () => {
  /** A sink of `maxBatchSize` that keeps every write it is handed, and says when each began. */
  function recordingSink(maxBatchSize: number, trace: string[] = []) {
    const inner = new ManagedSink({ type: 'memory', store: new MemoryStateStore() }, logger);
    const writes: { batch: Batch; position: JsonObject }[] = [];
    const sink: Sink = Object.assign(Object.create(inner) as Sink, {
      capabilities: { ...inner.capabilities, maxBatchSize },
      write: (batch: Batch, position: JsonObject) => {
        trace.push(`write ${JSON.stringify(position.offset)}`);
        writes.push({ batch, position });
        return inner.write(batch, position);
      },
    });
    return { sink, writes };
  }

  it("writes a page in parts of the sink's batch size: dead letters with the first, the page's position with the last only", async () => {
    const { sink, writes } = recordingSink(2);
    const page: JsonObject = { sms: [{ id: 'a' }, { bad: true }, { id: 'b' }, { id: 'c' }], total: 4, has_more: false };
    const result = await syncStream({
      businessId: 'acme',
      source: sourceOf(
        sms,
        client(() => Promise.resolve(page)),
      ),
      sink,
      normalizeContext,
    });
    expect(result).toMatchObject({ pages: 1, records: 4, written: 3, deadLettered: 1 });
    expect(writes.map(({ batch, position }) => [batch.records.map((record) => record.id), batch.deadLetters.length, position.offset])).toEqual([
      [['a', 'b'], 1, undefined],
      [['c'], 0, 4],
    ]);
  });

  it('writes a page without records once: its dead letters, and the checkpoint past it', async () => {
    const { sink, writes } = recordingSink(2);
    const page: JsonObject = { sms: [{ bad: true }], total: 1, has_more: false };
    await syncStream({
      businessId: 'acme',
      source: sourceOf(
        sms,
        client(() => Promise.resolve(page)),
      ),
      sink,
      normalizeContext,
    });
    expect(writes.map(({ batch, position }) => [batch.records.length, batch.deadLetters.length, position.offset])).toEqual([[0, 1, 1]]);
  });

  it('asks for the next page while this one is written, or, with readAhead 0, only once it is stored', async () => {
    for (const [readAhead, expected] of [
      [1, ['get 0', 'get 2', 'write 2', 'get 4', 'write 4', 'write 5']],
      [0, ['get 0', 'write 2', 'get 2', 'write 4', 'get 4', 'write 5']],
    ] as const) {
      const trace: string[] = [];
      const { sink } = recordingSink(10, trace);
      const pages = client((_, query) => {
        trace.push(`get ${String(query.offset)}`);
        return Promise.resolve(list('sms', 5)(query));
      });
      await syncStream({ businessId: 'acme', source: sourceOf(sms, pages), sink, normalizeContext, readAhead });
      expect(trace).toEqual(expected);
    }
  });
});

/** A sink that notes each checkpoint load and each write, in order. */
class CallOrderSink extends ManagedSink {
  readonly calls: string[] = [];
  constructor(store: MemoryStateStore) {
    super({ type: 'memory', store }, logger);
    const checkpoints = this.checkpoints;
    const load = checkpoints.load.bind(checkpoints);
    checkpoints.load = (businessId, stream) => {
      this.calls.push('load');
      return load(businessId, stream);
    };
  }

  override async write(batch: Batch, position: JsonObject): Promise<WriteResult> {
    this.calls.push('write');
    return super.write(batch, position);
  }
}

describe('syncStream and the checkpoint store', () => {
  it('loads the checkpoint at the start of every run of a stream, before that run writes (CheckpointStore.load says stores may rely on it)', async () => {
    const sink = new CallOrderSink(new MemoryStateStore());
    // Upstream grows between the runs, so the second has a page to write.
    const run = (records: number) =>
      syncStream({
        businessId: 'acme',
        source: sourceOf(
          sms,
          client((_, query) => Promise.resolve(list('sms', records)(query))),
        ),
        sink,
        normalizeContext,
        signal: new AbortController().signal,
      });
    await run(4);
    await run(6);
    const runs = sink.calls
      .join(' ')
      .split(/(?=load)/)
      .map((calls) => calls.trim());
    expect(runs).toEqual(['load write write', 'load write']);
  });
});
