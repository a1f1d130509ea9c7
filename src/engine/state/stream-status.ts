import type { PositionSummary } from '../../source/walkers/index.js';

/**
 * The state of one business × stream, as workers record it and operators see it. The shape is
 * shared by the status store, the `/status` JSON, the status page and `callsync status`.
 */

/** Every state a stream can be in, in the order the status page explains them. */
export const STREAM_STATES = ['idle', 'syncing', 'waiting_for_budget', 'auth_failed', 'gap_warning', 'drift', 'failed'] as const;

/**
 * - `idle`: between runs, last run fine.
 * - `syncing`: a run is in progress.
 * - `waiting_for_budget`: a run is paused until the business's rate-limit window resets.
 * - `auth_failed`: the upstream rejected the credentials (401/403); the business is stopped.
 * - `gap_warning`: the last run finished, but records may have been missed (see `warning`).
 * - `drift`: reconciliation found the sink and upstream disagree (see `warning`); repaired
 *   automatically unless `reconcile.repair` is false.
 * - `failed`: the last run stopped with an error (see `lastError`); the next scheduled run retries.
 */
export type StreamState = (typeof STREAM_STATES)[number];

export function isStreamState(value: unknown): value is StreamState {
  return typeof value === 'string' && (STREAM_STATES as readonly string[]).includes(value);
}

/** The business's request budget in the current rate-limit window, as the limiter last saw it. */
export interface BudgetView {
  readonly limit: number;
  readonly usedThisWindow: number;
  /** ISO 8601 UTC time the window resets. */
  readonly resetAt: string;
}

export interface StreamStatus {
  readonly business: string;
  readonly stream: string;
  readonly state: StreamState;
  /** ISO time the last run that finished without error ended; null before the first one. */
  readonly lastSuccessAt: string | null;
  /** ISO time the last run (successful or not) started. */
  readonly lastRunAt: string | null;
  /**
   * Seconds from `lastSuccessAt` to the moment the status was read (null before the first
   * success). Computed on read, never stored, so it keeps growing while no worker runs: it
   * measures how stale the mirror may be, which is what an alert needs. "Now minus the newest
   * stored `created_at`" would instead grow for a quiet business whose sync is healthy.
   */
  readonly lagSeconds: number | null;
  /** Records written for this stream over all runs. */
  readonly recordsSynced: number;
  /** Upstream pages fetched over all runs. */
  readonly pages: number;
  /** Records sent to the dead-letter table over all runs. */
  readonly deadLetters: number;
  /** Message of the last failure; cleared by the caller when a run succeeds. No secrets. */
  readonly lastError: string | null;
  /** A visible warning, e.g. a possible gap in the v2 high-water-mark walk, or a drift. */
  readonly warning: string | null;
  /**
   * Upstream's count minus the records the sink accounts for, at the last reconciliation: 0 is
   * exact, positive means records missing, negative records upstream no longer lists. Null when
   * never checked or when upstream gives no count (v2 streams).
   */
  readonly difference: number | null;
  readonly budget: BudgetView | null;
  /**
   * What the sink's stored position says of the walk (the order a v1 list was detected in, a deep
   * walk under way, a page size the server caps). Only `callsync status`, which reads the
   * checkpoints, fills it; workers never store it.
   */
  readonly walk?: PositionSummary;
  /** ISO time of the last update from any worker. */
  readonly updatedAt: string;
}

/** What `/metrics` reads of every stream at each scrape: its state, lag and last reconciliation's difference. */
export type StreamGauges = Pick<StreamStatus, 'business' | 'stream' | 'state' | 'lagSeconds' | 'difference'>;

/** Lag in whole seconds from `lastSuccessAt` to `nowMs`; never negative (clock skew between replicas). */
export function lagSecondsAt(lastSuccessAt: string | null, nowMs: number): number | null {
  if (lastSuccessAt === null) return null;
  const at = Date.parse(lastSuccessAt);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.floor((nowMs - at) / 1000));
}
