import type { JsonObject } from '../../src/sink/sink.js';
import { streamSource, type Source } from '../../src/source/source.js';
import { customStream } from '../../src/source/streams/custom-streams.js';
import type { StreamDescriptor } from '../../src/source/streams/stream-descriptor.js';
import type { PageClient, Query } from '../../src/source/walkers/index.js';

/** The engine's unit tests' upstream in miniature: two offset-paged custom streams, served two records a page. */
export const sms = customStream({ name: 'sms', path: '/sms', recordsKey: 'sms', paging: 'offset', idField: 'id', createdAtField: 'created_at' });
export const forms = customStream({ name: 'forms', path: '/forms', recordsKey: 'forms', paging: 'offset', idField: 'id', createdAtField: 'created_at' });
const paging = { pageSize: 2, v2Limit: 2, v2MaxLimit: 8, order: 'oldest_first', maxFutureSkewMs: 3_600_000 } as const;
export const normalizeContext = { recordingsBaseUrl: 'https://calls.example.com', v2TimeZone: 'UTC' };

/** An oldest-first list of `count` records served by offset, two at a time. */
export function list(recordsKey: string, count: number): (query: Query) => JsonObject {
  const all = Array.from({ length: count }, (_, i) => ({ id: `r${i}`, created_at: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString() }));
  return (query) => {
    const start = Number(query.offset ?? 0);
    const slice = all.slice(start, start + Number(query.limit));
    return { [recordsKey]: slice, total: all.length, has_more: start + slice.length < all.length };
  };
}

/** A business's client in miniature: every request answered by `answer`, by path. */
export function client(answer: (path: string, query: Query) => Promise<JsonObject>): PageClient {
  return { get: async (_api, path, query = {}) => ({ status: 200, payload: await answer(path, query), replacedUtf8: false }) };
}

/** The stream's source over `pages`, as a composition root binds it. */
export function sourceOf(descriptor: StreamDescriptor, pages: PageClient): Source {
  return streamSource({ descriptor, client: pages, rules: {}, paging, normalizeContext });
}

/**
 * Serves the lists by path; the request numbered `hangAt` (1-based, over every path) never
 * answers, and fails the way undici does once the signal is aborted.
 */
export function upstream(signal: AbortSignal, hangAt: number): PageClient {
  const lists = new Map([
    [sms.path, list(sms.recordsKey, 10)],
    [forms.path, list(forms.recordsKey, 10)],
  ]);
  let requests = 0;
  return client((path, query) => {
    requests += 1;
    if (requests !== hangAt) return Promise.resolve(lists.get(path)?.(query) ?? {});
    return new Promise((_, reject) => {
      signal.addEventListener('abort', () => reject(new DOMException('This operation was aborted', 'AbortError')), { once: true });
    });
  });
}
