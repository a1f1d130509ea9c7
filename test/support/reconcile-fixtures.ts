import { pino } from 'pino';
import { ManagedSink } from '../../src/sink/managed-sink.js';
import { MemoryStateStore } from '../fakes/memory-state-store.js';
import type { JsonObject } from '../../src/sink/sink.js';
import { streamSource, type Source } from '../../src/source/source.js';
import { customStream } from '../../src/source/streams/custom-streams.js';
import type { StreamDescriptor } from '../../src/source/streams/stream-descriptor.js';
import type { Query, WalkSettings } from '../../src/source/walkers/index.js';
import { loadDeletions, loadRepairWalk, type DeletionGuard, type DeletionState } from '../../src/engine/reconcile/repair.js';

/** Shared by the reconcile unit tests: the sink itself over a state store in memory, and an offset-paged upstream list. */

export const sms = customStream({ name: 'sms', path: '/sms', recordsKey: 'messages', paging: 'offset', idField: 'id' });

/**
 * A managed sink over {@link MemoryStateStore} holding these ids for `acme`/`sms`, synced once (a
 * position, so a repair may store what is missing), with dead letters of these upstream ids.
 */
export async function memorySink(ids: readonly string[], deadLetterIds: readonly string[] = []) {
  const state = new MemoryStateStore();
  const sink = new ManagedSink({ type: 'memory', store: state }, pino({ level: 'silent' }));
  await state.commit(
    {
      businessId: 'acme',
      table: sms.table,
      records: ids.map((id) => ({ businessId: 'acme', id, source: 'v1', fields: {}, raw: { id } })),
      deadLetters: deadLetterIds.map((id) => ({ businessId: 'acme', stream: sms.name, reason: 'unparseable', raw: { id } })),
    },
    { mode: 'offset', offset: ids.length },
  );
  const idsWhere = (deleted: boolean): string[] =>
    [...state.rows.values()]
      .filter((row) => row.deleted === deleted)
      .map((row) => row.record.id)
      .sort();
  return {
    sink,
    /** Ids stored and not marked deleted, sorted. */
    live: () => idsWhere(false),
    /** Ids marked deleted, sorted. */
    deleted: () => idsWhere(true),
    /** Where an unfinished repair walk stands (undefined once a walk reached the end). */
    repairWalk: (): Promise<JsonObject | undefined> => loadRepairWalk(sink, 'acme', sms),
    /** The deletion guard's memory between walks. */
    deletions: (): Promise<DeletionState> => loadDeletions(sink, 'acme', sms),
  };
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

const normalizeContext = { recordingsBaseUrl: 'https://rec.example.com', v2TimeZone: 'UTC' };
const paging: WalkSettings = { pageSize: 2, v2Limit: 10, v2MaxLimit: 100, order: 'auto', maxFutureSkewMs: 3_600_000 };

/** The stream's source over `fetch` (each request's payload by its query), as a composition root binds it; pages of `pageSize`. */
export function sourceOf(fetch: (query: Query) => Promise<JsonObject>, options: { descriptor?: StreamDescriptor; pageSize?: number } = {}): Source {
  return streamSource({
    descriptor: options.descriptor ?? sms,
    client: { get: async (_api, _path, query = {}) => ({ status: 200, payload: await fetch(query), replacedUtf8: false }) },
    rules: {},
    paging: { ...paging, pageSize: options.pageSize ?? paging.pageSize },
    normalizeContext,
  });
}

/** The walk mechanics below are shown under a confirmed repair; the guard has its own cases. */
export const confirmed: DeletionGuard = { maxShare: 0.1, afterMs: 3_600_000, confirmed: true };
export const base = { business: 'acme', guard: confirmed, normalizeContext };
