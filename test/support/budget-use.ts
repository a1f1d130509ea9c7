import type { RateWindow } from '../../simulator/index.js';

export interface BudgetUse {
  /** Requests admitted in the windows counted. */
  readonly used: number;
  /** `limit` × windows counted, including windows in which no request came at all. */
  readonly allowed: number;
  readonly windows: number;
  readonly ratio: number;
}

/**
 * Requests made / requests allowed over the windows a backlog filled. The first window is partial
 * (the run started inside it) and the last holds the tail of the backlog, so both are left out;
 * windows missing from the list in between count as allowed and unused.
 */
export function budgetUse(windows: readonly RateWindow[], limit: number, windowMs: number): BudgetUse {
  const first = windows[0];
  const last = windows[windows.length - 1];
  if (first === undefined || last === undefined || windows.length < 3) return { used: 0, allowed: 0, windows: 0, ratio: Number.NaN };
  const counted = Math.round((last.startMs - first.startMs) / windowMs) - 1;
  const used = windows.filter((w) => w.startMs > first.startMs && w.startMs < last.startMs).reduce((sum, w) => sum + w.admitted, 0);
  const allowed = counted * limit;
  return { used, allowed, windows: counted, ratio: used / allowed };
}

/** Sum of the `count` field over all windows: every request that reached the bucket. */
export function requestsSeen(windows: readonly RateWindow[]): number {
  return windows.reduce((sum, w) => sum + w.count, 0);
}
