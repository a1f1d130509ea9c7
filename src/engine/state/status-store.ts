import type { StreamGauges, StreamStatus } from './stream-status.js';
import type { StatusPatch } from './status-patch.js';

/** Records written in one UTC minute, for the status page's chart. */
export interface ActivityBucket {
  /** The minute, `YYYY-MM-DDTHH:MMZ` (UTC). */
  readonly minute: string;
  readonly records: number;
}

/** One stream's patch, for {@link StatusStore.writeMany}. */
export interface StatusWrite {
  readonly business: string;
  readonly stream: string;
  readonly patch: StatusPatch;
}

/**
 * Where workers publish stream status and where `/status`, the status page and `callsync status`
 * read it. Every method is safe to call concurrently from many worker replicas: counters and
 * activity only ever add, other fields are last-writer-wins.
 */
export interface StatusStore {
  /** Applies `patch` atomically, stamps `updatedAt`, and returns the status after the patch. */
  update(business: string, stream: string, patch: StatusPatch): Promise<StreamStatus>;
  /** As {@link update}, without reading the status back: one round trip, what a worker's run end needs. */
  write(business: string, stream: string, patch: StatusPatch): Promise<void>;
  /**
   * Several {@link write}s in one transaction, applied in order (a business's streams at the end of
   * one job: one round trip instead of one per stream).
   */
  writeMany(writes: readonly StatusWrite[]): Promise<void>;
  /** The status of one stream, or undefined when it was never updated (or was removed). */
  get(business: string, stream: string): Promise<StreamStatus | undefined>;
  /** Every known stream's status, sorted by business then stream. */
  list(): Promise<StreamStatus[]>;
  /** Every known stream's gauges, in no order: four fields of each status, what a `/metrics` scrape reads. */
  gauges(): Promise<StreamGauges[]>;
  /** Forgets one stream (e.g. a stream dropped from the config). Harmless when unknown. */
  remove(business: string, stream: string): Promise<void>;
  /** Adds `records` to the business's counter for the UTC minute containing `atMs`. */
  recordActivity(business: string, records: number, atMs: number): Promise<void>;
  /**
   * One bucket per UTC minute from the minute of `sinceMs` to the current minute, oldest first,
   * zero-filled. Minutes older than {@link ACTIVITY_RETENTION_MINUTES} read as zero.
   */
  activity(business: string, sinceMs: number): Promise<ActivityBucket[]>;
  /** Marks the whole business stopped (revoked key, missing role) with a reason free of secrets. */
  markBusinessFailed(business: string, reason: string): Promise<void>;
  clearBusinessFailed(business: string): Promise<void>;
  /** Failed businesses and their reasons. */
  failedBusinesses(): Promise<Record<string, string>>;
  /** Why one business is stopped, or undefined; reads that business only (every job asks). */
  failedReason(business: string): Promise<string | undefined>;
  /** Releases what the store owns (not injected connections). Safe to call twice. */
  close(): Promise<void>;
}

/** How long per-minute activity is kept: two hours, so the last-hour chart is always complete. */
export const ACTIVITY_RETENTION_MINUTES = 120;

const MINUTE_MS = 60_000;

/** The minute index (minutes since the epoch) containing `ms`. */
export function minuteOf(ms: number): number {
  return Math.floor(ms / MINUTE_MS);
}

export function minuteLabel(minute: number): string {
  return `${new Date(minute * MINUTE_MS).toISOString().slice(0, 16)}Z`;
}

/** The minute indexes `activity` reports for `sinceMs` at `nowMs`, clamped to the retention. */
export function activityMinutes(sinceMs: number, nowMs: number): number[] {
  const last = minuteOf(nowMs);
  const first = Math.max(minuteOf(sinceMs), last - ACTIVITY_RETENTION_MINUTES + 1);
  const minutes: number[] = [];
  for (let minute = first; minute <= last; minute += 1) minutes.push(minute);
  return minutes;
}

export function validateActivity(records: number, atMs: number): void {
  if (!Number.isSafeInteger(records) || records < 0) {
    throw new RangeError(`activity records must be a non-negative integer, got ${String(records)}`);
  }
  if (!Number.isFinite(atMs)) throw new RangeError(`activity time must be epoch milliseconds, got ${String(atMs)}`);
}
