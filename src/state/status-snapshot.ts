import type { StreamStatus } from './stream-status.js';
import type { ActivityBucket, StatusStore } from './status-store.js';

/** One business on the status page and in `/status`. */
export interface BusinessStatus {
  readonly name: string;
  /** Why the whole business is stopped (e.g. a revoked key), or null. */
  readonly failed: string | null;
  readonly streams: readonly StreamStatus[];
  /** Records written per minute over the last hour, oldest first. */
  readonly activity: readonly ActivityBucket[];
}

/** The body of `GET /status` and `callsync status --json`. */
export interface StatusSnapshot {
  /** ISO time the snapshot was read; the page measures "ago" from it. */
  readonly generatedAt: string;
  readonly businesses: readonly BusinessStatus[];
}

/** How far back the activity chart reaches. */
export const ACTIVITY_WINDOW_MS = 60 * 60_000;

/**
 * Reads everything the status views show. Businesses appear when any stream has reported or the
 * business is marked failed, sorted by name.
 */
export async function readStatusSnapshot(store: StatusStore, nowMs: number): Promise<StatusSnapshot> {
  const [streams, failed] = await Promise.all([store.list(), store.failedBusinesses()]);
  const names = [...new Set([...streams.map((s) => s.business), ...Object.keys(failed)])].sort();
  const sinceMs = nowMs - ACTIVITY_WINDOW_MS + 60_000;
  const businesses = await Promise.all(
    names.map(async (name) => ({
      name,
      failed: failed[name] ?? null,
      streams: streams.filter((s) => s.business === name),
      activity: await store.activity(name, sinceMs),
    })),
  );
  return { generatedAt: new Date(nowMs).toISOString(), businesses };
}
