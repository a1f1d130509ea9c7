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
const ACTIVITY_WINDOW_MS = 60 * 60_000;

interface ReadStatusOptions {
  /**
   * Read each business's activity (one read per business). Off, every `activity` is empty: the
   * summary views of 10,000 businesses need only the streams; see {@link readActivity}.
   * @defaultValue true
   */
  readonly activity?: boolean;
}

/**
 * Reads everything the status views show. Businesses appear when any stream has reported or the
 * business is marked failed, sorted by name.
 */
export async function readStatusSnapshot(store: StatusStore, nowMs: number, options: ReadStatusOptions = {}): Promise<StatusSnapshot> {
  const [streams, failed] = await Promise.all([store.list(), store.failedBusinesses()]);
  const byBusiness = new Map<string, StreamStatus[]>(Object.keys(failed).map((name) => [name, []]));
  // list() is sorted by business, so each business's streams stay in stream order.
  for (const status of streams) {
    const list = byBusiness.get(status.business);
    if (list === undefined) byBusiness.set(status.business, [status]);
    else list.push(status);
  }
  const names = [...byBusiness.keys()].sort();
  const activity = (options.activity ?? true) ? await readActivity(store, names, nowMs) : new Map<string, ActivityBucket[]>();
  const businesses = names.map((name) => ({
    name,
    failed: failed[name] ?? null,
    streams: byBusiness.get(name) ?? [],
    activity: activity.get(name) ?? [],
  }));
  return { generatedAt: new Date(nowMs).toISOString(), businesses };
}

/** The last hour's activity of each named business (one read each), for the charts. */
export async function readActivity(store: StatusStore, names: readonly string[], nowMs: number): Promise<Map<string, ActivityBucket[]>> {
  const sinceMs = nowMs - ACTIVITY_WINDOW_MS + 60_000;
  return new Map(await Promise.all(names.map(async (name) => [name, await store.activity(name, sinceMs)] as const)));
}
