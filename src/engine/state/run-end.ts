import { isBudgetWaitError } from '../../source/upstream/index.js';
import type { StatusPatch } from './status-patch.js';
import { describeStreamFailure, type StreamFailure } from './stream-failure.js';
import type { BudgetView, StreamState } from './stream-status.js';

/**
 * How a stream run that did not reach the end of its stream stopped. Every runner (a queue job,
 * `reconcile --repair`) turns its error into one of these here, once, and then only acts on it.
 */
export type RunEnd =
  /** Every page so far is stored; the run goes on after `delayMs` (a budget window, a shutdown). */
  | { readonly kind: 'paused'; readonly delayMs: number; readonly reason: string; readonly forBudget: boolean }
  /** This stream failed; the next scheduled run retries it. */
  | { readonly kind: 'stream_failed'; readonly failure: StreamFailure }
  /** The whole business stops (revoked key, missing role) until its config changes or `callsync resume`. */
  | { readonly kind: 'business_stopped'; readonly failure: StreamFailure };

const STOPPED_AFTER_PAGE = 'stopped after the page in flight was stored';

/** A run cut short on purpose (shutdown, a lost lock) after its page in flight was stored. */
export const pausedNow: RunEnd = { kind: 'paused', delayMs: 0, reason: STOPPED_AFTER_PAGE, forBudget: false };

/**
 * The one translation of a run's error: a wait for budget longer than the runner may hold its
 * slot is a pause until the window returns, not a failure.
 * @param aborted the run's signal was aborted: whatever the error, the run was stopped on purpose
 */
export function runEndOf(error: unknown, aborted = false): RunEnd {
  if (aborted) return pausedNow;
  if (isBudgetWaitError(error)) return { kind: 'paused', delayMs: error.waitMs, reason: error.message, forBudget: true };
  const failure = describeStreamFailure(error);
  return { kind: failure.scope === 'business' ? 'business_stopped' : 'stream_failed', failure };
}

/** The reason stored and shown for a failure, e.g. `auth: GET /calls: 401 Invalid API key`. */
export function failureReason(failure: StreamFailure): string {
  return `${failure.kind}: ${failure.message}`;
}

/** The stream's status when a run starts. */
export function runStarted(atMs: number): StatusPatch {
  return { state: 'syncing', lastRunAt: new Date(atMs).toISOString() };
}

/** What reconciliation found at the end of a run (see `src/engine/reconcile`). */
export interface DriftReading {
  /** Upstream minus what the sink accounts for; 0 when exact. */
  readonly difference: number;
  /** Set when the sink and upstream still disagree: what differs, for operators. */
  readonly drift: string | null;
}

/**
 * The stream's status after a run reached the end of its stream. A drift outranks a possible gap
 * (both warnings stay visible); without a reading the last difference is kept. The sink's `notes`
 * (calls whose customer a CRM chose by the direction) are shown with the warnings but change no state.
 */
export function runFinished(
  atMs: number,
  warning: string | null,
  budget: BudgetView | null,
  reading?: DriftReading,
  notes: readonly string[] = [],
): StatusPatch {
  const drift = reading?.drift ?? null;
  const warnings = [warning, drift, ...notes].filter((text): text is string => text !== null);
  return {
    state: drift !== null ? 'drift' : warning !== null ? 'gap_warning' : 'idle',
    lastSuccessAt: new Date(atMs).toISOString(),
    lastError: null,
    warning: warnings.length === 0 ? null : warnings.join('; '),
    budget,
    ...(reading === undefined ? {} : { difference: reading.difference }),
  };
}

/**
 * The stream's status after a scheduled reconciliation (no sync ran): a drift shows; an exact
 * result lifts an earlier drift but leaves any other state (a failed sync stays failed).
 */
export function reconciled(reading: DriftReading, current: StreamState | undefined): StatusPatch {
  if (reading.drift !== null) return { state: 'drift', warning: reading.drift, difference: reading.difference };
  return current === 'drift' ? { state: 'idle', warning: null, difference: reading.difference } : { difference: reading.difference };
}

/** The stream's status after a run that did not reach the end. */
export function runEnded(end: RunEnd, budget: BudgetView | null): StatusPatch {
  switch (end.kind) {
    case 'paused':
      return end.forBudget ? { state: 'waiting_for_budget', budget } : { state: 'idle' };
    case 'business_stopped':
      return businessStopped(failureReason(end.failure));
    case 'stream_failed':
      return { state: 'failed', lastError: failureReason(end.failure) };
  }
}

/** A stream of a stopped business: it sends no request and shows why. */
export function businessStopped(reason: string): StatusPatch {
  return { state: 'auth_failed', lastError: reason };
}

/** A stream of a business an operator resumed: back to idle until its next run says otherwise. */
export const businessResumed: StatusPatch = { state: 'idle', lastError: null };
