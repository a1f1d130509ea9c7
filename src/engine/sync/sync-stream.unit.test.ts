import { setImmediate } from 'node:timers/promises';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ManagedSink } from '../../sink/managed-sink.js';
import { MemoryStateStore } from '../../../test/fakes/memory-state-store.js';
import type { Batch, JsonObject, WriteResult } from '../../sink/sink.js';
import { customStream } from '../../source/streams/custom-streams.js';
import type { FetchPayload } from './sync-stream.js';
import { syncStream } from './sync-stream.js';
import { syncBusiness } from './sync-business.js';
import type { SyncEvent } from './sync-event.js';
import type { Query } from '../../source/walkers/index.js';

const sms = customStream({ name: 'sms', path: '/sms', recordsKey: 'sms', paging: 'offset', idField: 'id', createdAtField: 'created_at' });
const forms = customStream({ name: 'forms', path: '/forms', recordsKey: 'forms', paging: 'offset', idField: 'id', createdAtField: 'created_at' });
const paging = { pageSize: 2, v2Limit: 2, v2MaxLimit: 8, order: 'oldest_first', maxFutureSkewMs: 3_600_000 } as const;
const normalizeContext = { recordingsBaseUrl: 'https://calls.example.com', v2TimeZone: 'UTC' };
const logger = pino({ level: 'silent' });

/** An oldest-first list of `count` records served by offset, two at a time. */
function list(recordsKey: string, count: number): (query: Query) => JsonObject {
  const all = Array.from({ length: count }, (_, i) => ({ id: `r${i}`, created_at: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString() }));
  return (query) => {
    const start = Number(query.offset ?? 0);
    const slice = all.slice(start, start + Number(query.limit));
    return { [recordsKey]: slice, total: all.length, has_more: start + slice.length < all.length };
  };
}

/**
 * Serves the lists by path; the request numbered `hangAt` (1-based, over every path) never
 * answers, and fails the way undici does once the signal is aborted.
 */
function upstream(signal: AbortSignal, hangAt: number): FetchPayload & { requests: number } {
  const lists = new Map([
    [sms.path, list(sms.recordsKey, 10)],
    [forms.path, list(forms.recordsKey, 10)],
  ]);
  const fetch = (descriptor: { path: string }, query: Query): Promise<JsonObject> => {
    fetch.requests += 1;
    if (fetch.requests !== hangAt) return Promise.resolve(lists.get(descriptor.path)?.(query) ?? {});
    return new Promise((_, reject) => {
      signal.addEventListener('abort', () => reject(new DOMException('This operation was aborted', 'AbortError')), { once: true });
    });
  };
  fetch.requests = 0;
  return fetch;
}

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
    const fetchPayload = upstream(controller.signal, 3);
    const result = await syncStream({
      businessId: 'acme',
      descriptor: sms,
      fetchPayload,
      sink,
      normalizeContext,
      paging,
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
    const fetchPayload: FetchPayload = (_, query) => (++requests === 2 ? Promise.reject(new Error('socket hang up')) : Promise.resolve(list('sms', 10)(query)));
    await expect(
      syncStream({ businessId: 'acme', descriptor: sms, fetchPayload, sink, normalizeContext, paging, signal: new AbortController().signal }),
    ).rejects.toThrow('socket hang up');
  });

  it('tells the stream start and each stored page as events, in order', async () => {
    const sink = new ManagedSink({ type: 'memory', store: new MemoryStateStore() }, logger);
    const events: SyncEvent[] = [];
    const fetchPayload: FetchPayload = (_, query) => Promise.resolve(list('sms', 3)(query));
    const result = await syncStream({ businessId: 'acme', descriptor: sms, fetchPayload, sink, normalizeContext, paging, onEvent: (e) => events.push(e) });
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
    const plan = { name: 'acme', streams: [sms, forms], credentials: {}, bucket: undefined, normalizeContext };
    const outcome = await syncBusiness({
      plan,
      fetchPayload: upstream(controller.signal, 3),
      sink,
      paging,
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
