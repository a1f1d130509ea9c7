import type { JsonObject, SyncRecord } from '../sink.js';
import { customStream } from '../sync/custom-streams.js';
import type { Query } from '../sync/walkers/index.js';
import { NO_DELETIONS, type DeletionGuard, type DeletionState } from './deletion-guard.js';
import type { ReconcileStore } from './reconcile-store.js';

/** Shared by the reconcile unit tests: an in-memory sink side and an offset-paged upstream list. */

export const sms = customStream({ name: 'sms', path: '/sms', recordsKey: 'messages', paging: 'offset', idField: 'id' });

/** The sink side as plain sets: what a store holds, what it marked deleted, its dead letters. */
export function memoryStore(ids: readonly string[], deadLetterIds: readonly string[] = []) {
  const rows = new Set(ids);
  const deleted = new Set<string>();
  const walk: { position: JsonObject | undefined; deletions: DeletionState } = { position: undefined, deletions: NO_DELETIONS };
  const store: ReconcileStore = {
    count: () => Promise.resolve(rows.size),
    ids: () => [[...rows].sort()],
    markDeleted(_business, _descriptor, marked) {
      let newly = 0;
      for (const id of marked) {
        if (!rows.delete(id)) continue;
        newly += 1;
        deleted.add(id);
      }
      return Promise.resolve(newly);
    },
    store(_business, _descriptor, records: readonly SyncRecord[]) {
      for (const record of records) rows.add(record.id);
      return Promise.resolve(records.length);
    },
    deadLetterIds: () => Promise.resolve(new Set(deadLetterIds)),
    loadRepairWalk: () => Promise.resolve(walk.position),
    saveRepairWalk(_business, _descriptor, position) {
      walk.position = position ?? undefined;
      return Promise.resolve();
    },
    loadDeletions: () => Promise.resolve(walk.deletions),
    saveDeletions(_business, _descriptor, state) {
      walk.deletions = state;
      return Promise.resolve();
    },
  };
  return { store, rows, deleted, walk };
}

/** An offset-paged upstream list of these ids, reporting `total` (or a wrong one). */
export function offsetList(ids: readonly string[], reportedTotal = ids.length) {
  const queries: Query[] = [];
  const fetch = (query: Query): Promise<JsonObject> => {
    queries.push(query);
    const offset = Number(query.offset ?? 0);
    const limit = Number(query.limit ?? 50);
    return Promise.resolve({ messages: ids.slice(offset, offset + limit).map((id) => ({ id })), total: reportedTotal });
  };
  return { fetch, queries };
}

/** The walk mechanics below are shown under a confirmed repair; the guard has its own cases. */
export const confirmed: DeletionGuard = { maxShare: 0.1, afterMs: 3_600_000, confirmed: true };
export const base = { business: 'acme', guard: confirmed, normalizeContext: { recordingsBaseUrl: 'https://rec.example.com', v2TimeZone: 'UTC' }, paging: { pageSize: 2, v2Limit: 10, v2MaxLimit: 100, order: 'auto' as const, maxFutureSkewMs: 3_600_000 } };
