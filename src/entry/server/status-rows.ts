import { STREAM_STATES, type StreamStatus } from '../../engine/state/index.js';
import { formatAgo, formatBudget, formatCount, formatLag, STATE_LABELS, stateFix, WAITING_LONG_FIX } from './format.js';
import { escapeHtml } from './html.js';

/** The pieces of a stream table both pages share: the summary's problem list and a business's page. */

const STATE_HELP: Readonly<Record<StreamStatus['state'], string>> = {
  idle: 'between runs; the last run finished without error',
  syncing: 'a run is in progress',
  waiting_for_budget: "paused until the business's rate-limit window resets",
  auth_failed: 'the service rejected the credentials; the business is stopped until they are fixed',
  gap_warning: 'the last run finished but records may have been missed; see the warning',
  drift:
    'the sink and upstream disagree on how many records there are; see the warning (repaired automatically unless reconcile.repair is false; deletions past reconcile.maxDeleteShare or maxDeleteCount wait for a person to confirm)',
  failed: 'the last run stopped with an error; the next scheduled run retries',
};

/** Where a business's own page is, relative to the page linking to it (`base` is `''` at `/`). */
export function businessHref(name: string, base: string): string {
  return `${base}business/${encodeURIComponent(name)}`;
}

function timeCell(iso: string | null, nowIso: string): string {
  if (iso === null) return '<td>never</td>';
  return `<td><time datetime="${escapeHtml(iso)}" title="${escapeHtml(iso)}">${escapeHtml(formatAgo(iso, nowIso))}</time></td>`;
}

function messageCell(status: StreamStatus, waitingLong: boolean): string {
  const parts: string[] = [];
  if (waitingLong) parts.push(`<div class="warning">No successful run for ${escapeHtml(formatLag(status.lagSeconds))}.</div>`);
  if (status.lastError !== null) parts.push(`<div class="error">${escapeHtml(status.lastError)}</div>`);
  if (status.warning !== null) parts.push(`<div class="warning">${escapeHtml(status.warning)}</div>`);
  // Waiting long outranks the state's own fix ("nothing: it resumes…" no longer holds).
  const fix = waitingLong ? WAITING_LONG_FIX : stateFix(status);
  if (fix !== null) parts.push(`<div class="fix">Fix: ${escapeHtml(fix)}</div>`);
  return `<td class="message">${parts.join('') || '-'}</td>`;
}

interface RowOptions {
  /** Show the business column, linking to its page (the summary's list spans businesses). */
  readonly business?: { readonly base: string };
  /** The stream's lag is past the waiting-long threshold. */
  readonly waitingLong?: boolean;
}

export function streamRow(status: StreamStatus, nowIso: string, options: RowOptions = {}): string {
  const budgetTitle = status.budget === null ? '' : ` title="the rate-limit window resets at ${escapeHtml(status.budget.resetAt)}"`;
  const business =
    options.business === undefined
      ? ''
      : `<td class="name"><a href="${escapeHtml(businessHref(status.business, options.business.base))}">${escapeHtml(status.business)}</a></td>`;
  const lagClass = options.waitingLong === true ? 'num late' : 'num';
  return (
    `<tr data-business="${escapeHtml(status.business)}" data-stream="${escapeHtml(status.stream)}">` +
    business +
    `<td>${escapeHtml(status.stream)}</td>` +
    `<td class="state state-${status.state}" data-state="${status.state}" title="${escapeHtml(STATE_HELP[status.state])}">` +
    `${escapeHtml(STATE_LABELS[status.state])}</td>` +
    timeCell(status.lastSuccessAt, nowIso) +
    `<td class="${lagClass}">${escapeHtml(formatLag(status.lagSeconds))}</td>` +
    `<td class="num">${escapeHtml(formatCount(status.recordsSynced))}</td>` +
    `<td class="num"${budgetTitle}>${escapeHtml(formatBudget(status.budget))}</td>` +
    `<td class="num">${escapeHtml(formatCount(status.deadLetters))}</td>` +
    messageCell(status, options.waitingLong === true) +
    '</tr>'
  );
}

export function headRow(withBusiness: boolean): string {
  return (
    `<tr>${withBusiness ? '<th scope="col">Business</th>' : ''}<th scope="col">Stream</th><th scope="col">State</th>` +
    '<th scope="col">Last success</th><th scope="col">Lag</th><th scope="col">Records synced</th>' +
    '<th scope="col">Budget used (window reset)</th><th scope="col">Dead letters</th><th scope="col">Last error / warning / fix</th></tr>'
  );
}

/** The business-wide stop, with its fix. */
export function stoppedNotice(name: string, reason: string): string {
  return (
    `<p class="business-failed" role="alert">Stopped: ${escapeHtml(reason)}. ` +
    `Fix: ${escapeHtml(stateFix({ state: 'auth_failed', business: name, stream: '' }) ?? '')}</p>`
  );
}

export function legend(): string {
  const items = STREAM_STATES.map(
    (state) => `<li><span class="state state-${state}">${escapeHtml(STATE_LABELS[state])}</span>: ${escapeHtml(STATE_HELP[state])}</li>`,
  ).join('');
  return `<footer><h2>States</h2><ul class="legend">${items}</ul></footer>`;
}
