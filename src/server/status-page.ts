import { STREAM_STATES, type StreamStatus } from '../state/index.js';
import { STATE_LABELS } from './format.js';
import type { BusinessStatus, StatusSnapshot } from '../state/index.js';
import { escapeHtml } from './html.js';
import { formatAgo, formatBudget, formatCount, formatLag, stateFix } from './format.js';
import { renderActivityChart } from './status-chart.js';
import { STATUS_PAGE_CSS } from './status-page-style.js';

export interface StatusPageOptions {
  /** Seconds between automatic reloads (a meta refresh: works without JavaScript). @defaultValue 5 */
  readonly refreshSeconds?: number;
}

const STATE_HELP: Readonly<Record<StreamStatus['state'], string>> = {
  idle: 'between runs; the last run finished without error',
  syncing: 'a run is in progress',
  waiting_for_budget: "paused until the business's rate-limit window resets",
  auth_failed: 'the service rejected the credentials; the business is stopped until they are fixed',
  gap_warning: 'the last run finished but records may have been missed; see the warning',
  drift: 'the sink and upstream disagree on how many records there are; see the warning (repaired automatically unless reconcile.repair is false; deletions past reconcile.maxDeleteShare or maxDeleteCount wait for a person to confirm)',
  failed: 'the last run stopped with an error; the next scheduled run retries',
};

function timeCell(iso: string | null, nowIso: string): string {
  if (iso === null) return '<td>never</td>';
  return `<td><time datetime="${escapeHtml(iso)}" title="${escapeHtml(iso)}">${escapeHtml(formatAgo(iso, nowIso))}</time></td>`;
}

function messageCell(status: StreamStatus): string {
  const parts: string[] = [];
  if (status.lastError !== null) parts.push(`<div class="error">${escapeHtml(status.lastError)}</div>`);
  if (status.warning !== null) parts.push(`<div class="warning">${escapeHtml(status.warning)}</div>`);
  const fix = stateFix(status);
  if (fix !== null) parts.push(`<div class="fix">Fix: ${escapeHtml(fix)}</div>`);
  return `<td>${parts.join('') || '-'}</td>`;
}

function streamRow(status: StreamStatus, nowIso: string): string {
  const budgetTitle = status.budget === null ? '' : ` title="the rate-limit window resets at ${escapeHtml(status.budget.resetAt)}"`;
  return (
    `<tr data-business="${escapeHtml(status.business)}" data-stream="${escapeHtml(status.stream)}">` +
    `<td>${escapeHtml(status.stream)}</td>` +
    `<td class="state state-${status.state}" data-state="${status.state}" title="${escapeHtml(STATE_HELP[status.state])}">` +
    `${escapeHtml(STATE_LABELS[status.state])}</td>` +
    timeCell(status.lastSuccessAt, nowIso) +
    `<td class="num">${escapeHtml(formatLag(status.lagSeconds))}</td>` +
    `<td class="num">${escapeHtml(formatCount(status.recordsSynced))}</td>` +
    `<td class="num"${budgetTitle}>${escapeHtml(formatBudget(status.budget))}</td>` +
    `<td class="num">${escapeHtml(formatCount(status.deadLetters))}</td>` +
    messageCell(status) +
    '</tr>'
  );
}

const HEAD_ROW =
  '<tr><th scope="col">Stream</th><th scope="col">State</th><th scope="col">Last success</th><th scope="col">Lag</th>' +
  '<th scope="col">Records synced</th><th scope="col">Budget used (window reset)</th><th scope="col">Dead letters</th>' +
  '<th scope="col">Last error / warning / fix</th></tr>';

function businessSection(business: BusinessStatus, nowIso: string): string {
  const failed =
    business.failed === null
      ? ''
      : `<p class="business-failed" role="alert">Stopped: ${escapeHtml(business.failed)}. ` +
        `Fix: ${escapeHtml(stateFix({ state: 'auth_failed', business: business.name, stream: '' }) ?? '')}</p>`;
  const rows = business.streams.map((status) => streamRow(status, nowIso)).join('');
  return (
    `<section class="business" data-business="${escapeHtml(business.name)}">` +
    `<h2>${escapeHtml(business.name)}</h2>${failed}${renderActivityChart(business.name, business.activity)}` +
    (rows === '' ? '<p>No stream has reported yet.</p>' : `<table><thead>${HEAD_ROW}</thead><tbody>${rows}</tbody></table>`) +
    '</section>'
  );
}

function legend(): string {
  const items = STREAM_STATES.map(
    (state) => `<li><span class="state state-${state}">${escapeHtml(STATE_LABELS[state])}</span>: ${escapeHtml(STATE_HELP[state])}</li>`,
  ).join('');
  return `<footer><h2>States</h2><ul class="legend">${items}</ul></footer>`;
}

/**
 * The operators' status page: complete HTML with inline CSS and SVG only, no script, so it works
 * with JavaScript off and under a `default-src 'none'` content security policy. Every value from
 * the store is escaped.
 */
export function renderStatusPage(snapshot: StatusSnapshot, options: StatusPageOptions = {}): string {
  const refresh = Math.max(1, Math.round(options.refreshSeconds ?? 5));
  const body =
    snapshot.businesses.length === 0
      ? '<p>No business has reported yet. Workers publish status once their first job starts.</p>'
      : snapshot.businesses.map((business) => businessSection(business, snapshot.generatedAt)).join('');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<meta http-equiv="refresh" content="${refresh}"><title>callsync status</title>` +
    `<style>${STATUS_PAGE_CSS}</style></head><body>` +
    '<header><h1>callsync status</h1>' +
    `<p class="meta">Generated <time datetime="${escapeHtml(snapshot.generatedAt)}">${escapeHtml(snapshot.generatedAt)}</time>; ` +
    `reloads every ${refresh} s. Machine-readable: <a href="status">/status</a>, <a href="metrics">/metrics</a>.</p></header>` +
    `<main>${body}</main>${legend()}</body></html>`
  );
}
