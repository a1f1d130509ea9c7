import { lagSecondsAt, type StreamStatus } from './status-model.js';
import { applyPatch, emptyStatus, validatePatch, type StatusPatch, type StoredStatus } from './status-patch.js';
import {
  ACTIVITY_RETENTION_MINUTES,
  activityMinutes,
  minuteLabel,
  minuteOf,
  validateActivity,
  type ActivityBucket,
  type StatusStore,
} from './status-store.js';

export interface MemoryStatusStoreOptions {
  /** Clock for `updatedAt`, lag and activity windows. @defaultValue Date.now */
  readonly now?: () => number;
}

/** Runs `fn` so that a thrown error becomes a rejection, as it would be in the Redis store. */
function settle<T>(fn: () => T): Promise<T> {
  return new Promise((resolve) => resolve(fn()));
}

function compareStatus(a: StoredStatus, b: StoredStatus): number {
  return a.business < b.business ? -1 : a.business > b.business ? 1 : a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0;
}

/** For `backfill` and tests: one process, no Redis; same behaviour as the Redis store. */
export function createMemoryStatusStore(options: MemoryStatusStoreOptions = {}): StatusStore {
  const now = options.now ?? Date.now;
  const streams = new Map<string, StoredStatus>();
  const activity = new Map<string, Map<number, number>>();
  const failed = new Map<string, string>();
  const keyOf = (business: string, stream: string): string => JSON.stringify([business, stream]);
  const withLag = (status: StoredStatus): StreamStatus => ({
    ...status,
    budget: status.budget === null ? null : { ...status.budget },
    lagSeconds: lagSecondsAt(status.lastSuccessAt, now()),
  });

  return {
    update(business, stream, patch: StatusPatch) {
      return settle(() => {
        validatePatch(patch);
        const updatedAt = new Date(now()).toISOString();
        const current = streams.get(keyOf(business, stream)) ?? emptyStatus(business, stream, updatedAt);
        const next = applyPatch(current, patch, updatedAt);
        streams.set(keyOf(business, stream), next);
        return withLag(next);
      });
    },
    get(business, stream) {
      const status = streams.get(keyOf(business, stream));
      return Promise.resolve(status === undefined ? undefined : withLag(status));
    },
    list() {
      return Promise.resolve([...streams.values()].sort(compareStatus).map(withLag));
    },
    remove(business, stream) {
      streams.delete(keyOf(business, stream));
      return Promise.resolve();
    },
    recordActivity(business, records, atMs) {
      return settle(() => {
        validateActivity(records, atMs);
        const minutes = activity.get(business) ?? new Map<number, number>();
        const minute = minuteOf(atMs);
        minutes.set(minute, (minutes.get(minute) ?? 0) + records);
        const oldest = minuteOf(now()) - ACTIVITY_RETENTION_MINUTES;
        for (const kept of minutes.keys()) if (kept < oldest) minutes.delete(kept);
        activity.set(business, minutes);
      });
    },
    activity(business, sinceMs): Promise<ActivityBucket[]> {
      const minutes = activity.get(business);
      return Promise.resolve(
        activityMinutes(sinceMs, now()).map((minute) => ({ minute: minuteLabel(minute), records: minutes?.get(minute) ?? 0 })),
      );
    },
    markBusinessFailed(business, reason) {
      failed.set(business, reason);
      return Promise.resolve();
    },
    clearBusinessFailed(business) {
      failed.delete(business);
      return Promise.resolve();
    },
    failedBusinesses() {
      return Promise.resolve(Object.fromEntries([...failed.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
    },
    close() {
      return Promise.resolve();
    },
  };
}
