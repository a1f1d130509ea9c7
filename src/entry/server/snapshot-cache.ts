import { readStatusSnapshot, type StatusSnapshot, type StatusStore } from '../../engine/state/index.js';

/** Reads the status of every stream (no activity), sharing one read between the requests that come close together. */
export type SnapshotReader = () => Promise<StatusSnapshot>;

/**
 * At 10,000 businesses one read of every stream's status is 30,000 hashes (about a second on a
 * loaded 2-core machine), while the page itself renders in milliseconds. Requests within
 * `maxAgeMs` of a read, or while one is under way, share it: walking `/status` page by page, or
 * several people watching the page, costs one read, not one per request. A failed read is not kept.
 */
export function sharedSnapshotReader(store: StatusStore, now: () => number, maxAgeMs: number): SnapshotReader {
  let last: { readonly atMs: number; readonly read: Promise<StatusSnapshot> } | undefined;
  return () => {
    const atMs = now();
    if (last !== undefined && atMs - last.atMs < maxAgeMs) return last.read;
    const read = readStatusSnapshot(store, atMs, { activity: false });
    const entry = { atMs, read };
    last = entry;
    read.catch(() => {
      if (last === entry) last = undefined;
    });
    return read;
  };
}
