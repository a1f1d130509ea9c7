import type { Json, JsonObject, SyncRecord } from '../sink.js';
import type { StreamDescriptor } from '../sync/stream-descriptor.js';
import type { DeletionState } from './deletion-guard.js';

/** What reconciliation needs from the sink for one business × stream. */
export interface ReconcileStore {
  /** Records stored and not marked deleted. */
  count(businessId: string, descriptor: StreamDescriptor): Promise<number>;
  /** Every stored, not deleted id, one page at a time. */
  ids(businessId: string, descriptor: StreamDescriptor): AsyncIterable<readonly string[]> | Iterable<readonly string[]>;
  /** Marks records deleted the target's way (never a hard delete); resolves with how many were newly marked. */
  markDeleted(businessId: string, descriptor: StreamDescriptor, ids: readonly string[]): Promise<number>;
  /** Stores records without moving the stream's position; resolves with how many were written. */
  store(businessId: string, descriptor: StreamDescriptor, records: readonly SyncRecord[]): Promise<number>;
  /** Upstream ids of the stream's dead letters: records upstream has that could not be stored. */
  deadLetterIds(businessId: string, descriptor: StreamDescriptor): Promise<ReadonlySet<string>>;
  /** Where an unfinished repair walk stopped (a walker position), or undefined. */
  loadRepairWalk(businessId: string, descriptor: StreamDescriptor): Promise<JsonObject | undefined>;
  /** Records where the repair walk stands; null once it reached the end. */
  saveRepairWalk(businessId: string, descriptor: StreamDescriptor, position: JsonObject | null): Promise<void>;
  /** Records whole walks missed and deletions held back (the deletion guard's memory between walks). */
  loadDeletions(businessId: string, descriptor: StreamDescriptor): Promise<DeletionState>;
  /** Replaces it; an empty state clears it. */
  saveDeletions(businessId: string, descriptor: StreamDescriptor, state: DeletionState): Promise<void>;
}

/**
 * The upstream id of a raw record (`id`, as the v1 API names it), for records that could not be
 * normalized: a dead letter, or a stored record whose newer version fails, must not be taken for missing or deleted.
 */
export function rawId(raw: Json): string | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const id = raw.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

export async function storedIds(store: ReconcileStore, businessId: string, descriptor: StreamDescriptor): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const page of store.ids(businessId, descriptor)) for (const id of page) ids.add(id);
  return ids;
}

/**
 * What the sink accounts for: stored rows plus dead letters whose record is not stored (a record
 * that could not be stored is known, not missing; one stored since must not count twice).
 * @param counted the rows already counted, to save a query
 */
export async function accountedCount(store: ReconcileStore, businessId: string, descriptor: StreamDescriptor, counted?: number): Promise<number> {
  const [rows, dead] = await Promise.all([counted ?? store.count(businessId, descriptor), store.deadLetterIds(businessId, descriptor)]);
  if (dead.size === 0) return rows;
  // Stored ids stream past the dead letters instead of being held: memory stays bounded by the
  // dead letters, not by the stream (1M stored ids held as a Set are about 75 MB of heap).
  const unstored = new Set(dead);
  for await (const page of store.ids(businessId, descriptor)) for (const id of page) unstored.delete(id);
  return rows + unstored.size;
}
