import { HELD_DELETIONS } from '../../engine/reconcile/check.js';
import type { StreamState, StreamStatus } from '../../engine/state/index.js';

/** Formatting shared by the status page and the terminal table. */

/** Human wording of each state, shared by the page and the terminal table. */
export const STATE_LABELS: Readonly<Record<StreamState, string>> = {
  idle: 'idle',
  syncing: 'syncing',
  waiting_for_budget: 'waiting for budget',
  auth_failed: 'auth failed',
  gap_warning: 'gap warning',
  drift: 'drift',
  failed: 'failed',
};

/** `45s`, `12m`, `3h 05m`, `2d 4h`: short enough for a table cell, exact enough to alert on. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}

/** `3m ago` measured from `nowIso`; `never` for null; the raw text when it is not a time. */
export function formatAgo(iso: string | null, nowIso: string): string {
  if (iso === null) return 'never';
  const at = Date.parse(iso);
  const now = Date.parse(nowIso);
  if (Number.isNaN(at) || Number.isNaN(now)) return iso;
  return at > now ? 'just now' : `${formatDuration((now - at) / 1000)} ago`;
}

export function formatLag(lagSeconds: number | null): string {
  return lagSeconds === null ? '-' : formatDuration(lagSeconds);
}

/** `12/60` requests used this window; `-` when the limiter has not reported. */
export function formatBudget(budget: { readonly limit: number; readonly usedThisWindow: number; readonly resetAt: string } | null): string {
  return budget === null ? '-' : `${budget.usedThisWindow}/${budget.limit}, resets ${formatClock(budget.resetAt)}`;
}

/** `07:15:02 UTC` from an ISO time; the date is left out, as the window is at most a day. */
function formatClock(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? '?' : `${at.toISOString().slice(11, 19)} UTC`;
}

/**
 * What the operator does about a stream in this state, naming the command; null when nothing.
 * The status page and `callsync status` show the same words.
 */
export function stateFix(status: Pick<StreamStatus, 'state' | 'business' | 'stream'> & { readonly warning?: string | null }): string | null {
  const { business, stream } = status;
  switch (status.state) {
    case 'auth_failed':
      return `fix the key (apiKey, session or v2Token of business ${business}), then \`callsync resume ${business}\``;
    case 'failed':
      return `read the last error; the next scheduled run retries (\`callsync backfill --business ${business} --stream ${stream}\` runs it now)`;
    case 'gap_warning':
      return `read the warning; \`callsync reconcile --business ${business} --stream ${stream}\` compares with upstream`;
    case 'drift':
      if (status.warning?.includes(HELD_DELETIONS) === true) {
        // Short enough for a 120-column terminal: the warning beside it says how many.
        return 'check upstream really dropped them, then `callsync reconcile --repair --confirm-deletions`';
      }
      return `repaired by the next reconciliation unless reconcile.repair is false; \`callsync reconcile --business ${business} --stream ${stream} --repair\` repairs now`;
    case 'waiting_for_budget':
      return 'nothing: it resumes when the window resets (see the budget)';
    case 'idle':
    case 'syncing':
      return null;
  }
}

/** What the operator checks about a stream waiting long (its state looks fine, its last success is old); the page and `callsync status` say the same. */
export const WAITING_LONG_FIX = "check that a `callsync run` worker is up (its /readyz) and that the business's budget is enough for its streams";

/** `1,234,567`: fixed locale so output does not depend on the machine. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/** `newest first, deep walk, cap 100`: what the stored position says of the walk; `-` when it says nothing. */
export function formatWalk(walk: StreamStatus['walk']): string {
  if (walk === undefined) return '-';
  const order = walk.order === undefined ? undefined : walk.order === 'newest_first' ? 'newest first' : 'oldest first';
  const cap = walk.pageCap ?? walk.serverCap;
  const parts = [order, walk.walkInProgress === true ? 'deep walk' : undefined, cap === undefined ? undefined : `cap ${cap}`];
  return parts.filter((part) => part !== undefined).join(', ') || '-';
}
