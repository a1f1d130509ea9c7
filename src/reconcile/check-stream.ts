import type { JsonObject } from '../sink.js';
import type { StreamDescriptor } from '../sync/stream-descriptor.js';
import type { Query } from '../sync/walkers/index.js';
import { accountedCount, type ReconcileStore } from './reconcile-store.js';
import { judge, type StreamCheck } from './stream-check.js';
import { isVerifiable, upstreamTotal } from './upstream-total.js';

export interface CheckStreamOptions {
  readonly business: string;
  readonly descriptor: StreamDescriptor;
  readonly store: ReconcileStore;
  readonly fetch: (query: Query) => Promise<JsonObject>;
  /** Upstream's total when it is already known (the last page of a run carried it): no request. */
  readonly knownTotal?: number;
}

/** Compares what the sink accounts for with upstream's `total`: one request at most, none when the total is known. */
export async function checkStream(options: CheckStreamOptions): Promise<StreamCheck> {
  const { business, descriptor } = options;
  const upstream = !isVerifiable(descriptor) ? null : (options.knownTotal ?? (await upstreamTotal(descriptor, options.fetch)));
  // Rows alone matching is the common case after every run: the dead letters need not be read.
  const rows = await options.store.count(business, descriptor);
  const stored = rows === upstream ? rows : await accountedCount(options.store, business, descriptor, rows);
  return judge(business, descriptor.name, stored, upstream);
}
