import { STREAM_STATES, type StreamState, type StreamStatus } from '../../engine/state/index.js';
import type { StatusSnapshot } from '../../engine/state/index.js';

/**
 * Why a stream needs a person: one of the states that stop or warn, or `waiting_long`: no
 * successful run for longer than the deployment's threshold (a budget wait that never ends, a run
 * stuck, no worker at all) while its state says nothing is wrong.
 */
export type Attention = 'auth_failed' | 'failed' | 'drift' | 'gap_warning' | 'waiting_long';

/** In the order the summary lists them: what stops a business first. */
export const ATTENTIONS: readonly Attention[] = ['auth_failed', 'failed', 'drift', 'gap_warning', 'waiting_long'];

const PROBLEM_STATES: ReadonlySet<StreamState> = new Set(['auth_failed', 'failed', 'drift', 'gap_warning']);

/** The order the summary reads in: what needs a person first, then the healthy states. */
export const SUMMARY_ORDER: readonly (StreamState | 'waiting_long')[] = [
  'auth_failed',
  'failed',
  'drift',
  'gap_warning',
  'waiting_long',
  'waiting_for_budget',
  'syncing',
  'idle',
];

/** Counts over the whole deployment: what the status page, `/status` and `callsync status` open on. */
export interface StatusSummary {
  readonly businesses: number;
  readonly streams: number;
  /** Streams in each state; every state is listed (0 when none). */
  readonly byState: Readonly<Record<StreamState, number>>;
  /** Streams whose state is fine but that have not synced for `lateAfterSeconds` or more. */
  readonly waitingLong: number;
  /** Streams that need a person: a problem state or waiting long. */
  readonly needsPerson: number;
  /** Businesses stopped as a whole (a revoked key), each until `callsync resume`. */
  readonly stoppedBusinesses: number;
  /** The lag from which a stream counts as waiting long. */
  readonly lateAfterSeconds: number;
}

/** How many streams the summary counts under `key` (`needs_person`: every stream that needs a person). */
export function summaryCount(summary: StatusSummary, key: StreamState | 'waiting_long' | 'needs_person'): number {
  if (key === 'needs_person') return summary.needsPerson;
  if (key === 'waiting_long') return summary.waitingLong;
  return summary.byState[key];
}

/** The smallest lag that counts as waiting long. */
export const MIN_LATE_AFTER_SECONDS = 300;

/**
 * A stream is waiting long after three missed schedules, and never sooner than five minutes, so a
 * budget wait of one rate-limit window or one slow run does not call a person.
 */
export function lateAfterSeconds(scheduleEveryMs: number): number {
  return Math.max(MIN_LATE_AFTER_SECONDS, Math.ceil((3 * scheduleEveryMs) / 1000));
}

/** Why `status` needs a person, or null when it does not. */
export function attentionOf(status: Pick<StreamStatus, 'state' | 'lagSeconds'>, lateAfter: number): Attention | null {
  if (PROBLEM_STATES.has(status.state)) return status.state as Attention;
  return status.lagSeconds !== null && status.lagSeconds >= lateAfter ? 'waiting_long' : null;
}

/** Counts every business and stream of `snapshot`. */
export function summarize(snapshot: StatusSnapshot, lateAfter: number): StatusSummary {
  const byState = Object.fromEntries(STREAM_STATES.map((state) => [state, 0])) as Record<StreamState, number>;
  let streams = 0;
  let waitingLong = 0;
  let needsPerson = 0;
  let stoppedBusinesses = 0;
  for (const business of snapshot.businesses) {
    if (business.failed !== null) stoppedBusinesses += 1;
    for (const status of business.streams) {
      streams += 1;
      byState[status.state] += 1;
      const attention = attentionOf(status, lateAfter);
      if (attention === 'waiting_long') waitingLong += 1;
      if (attention !== null) needsPerson += 1;
    }
  }
  return { businesses: snapshot.businesses.length, streams, byState, waitingLong, needsPerson, stoppedBusinesses, lateAfterSeconds: lateAfter };
}

/** Most behind first: never synced, then the largest lag; ties by business, then stream. */
export function byLag(a: StreamStatus, b: StreamStatus): number {
  const lagA = a.lagSeconds ?? Number.POSITIVE_INFINITY;
  const lagB = b.lagSeconds ?? Number.POSITIVE_INFINITY;
  if (lagA !== lagB) return lagB - lagA;
  if (a.business !== b.business) return a.business < b.business ? -1 : 1;
  return a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0;
}
