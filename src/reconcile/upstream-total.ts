import type { JsonObject } from '../sink.js';
import type { PagingMode, StreamDescriptor } from '../sync/stream-descriptor.js';
import type { Query } from '../sync/walkers/index.js';

/**
 * The cheapest request that carries `total` for each v1 paging mode (one record asked for); a
 * full-list endpoint (`none`) is read whole. v2 lists carry no total: absent.
 */
const TOTAL_QUERY: Readonly<Partial<Record<PagingMode, Query>>> = {
  cursor: { limit: 1 },
  offset: { limit: 1, offset: 0 },
  page: { page: 1, per_page: 1 },
  none: {},
};

/** True when upstream can say how many records the stream has. */
export function isVerifiable(descriptor: StreamDescriptor): boolean {
  return descriptor.api === 'v1' && TOTAL_QUERY[descriptor.paging] !== undefined;
}

/** `total` of a payload when it is a count (a non-negative integer); anything else says nothing. */
export function totalOf(payload: JsonObject): number | undefined {
  const total = payload.total;
  return typeof total === 'number' && Number.isSafeInteger(total) && total >= 0 ? total : undefined;
}

/**
 * Asks upstream how many records the stream has (one request, within the business's budget).
 * @returns null for a stream that cannot say (v2, or a payload without a usable total)
 */
export async function upstreamTotal(descriptor: StreamDescriptor, fetch: (query: Query) => Promise<JsonObject>): Promise<number | null> {
  const query = descriptor.api === 'v1' ? TOTAL_QUERY[descriptor.paging] : undefined;
  if (query === undefined) return null;
  return totalOf(await fetch(query)) ?? null;
}
