import type { BusinessStatus } from '../../engine/state/index.js';
import { formatAgo } from './format.js';
import { escapeHtml } from './html.js';
import { renderPage, type PageOptions } from './page-shell.js';
import { renderActivityChart } from './status-chart.js';
import { headRow, stoppedNotice, streamRow } from './status-rows.js';
import { attentionOf } from './status-summary.js';

interface BusinessPageOptions extends PageOptions {
  /** The lag from which a stream counts as waiting long. */
  readonly lateAfterSeconds: number;
  /** Shown when `run` receives webhooks: the business's last delivery (null: none yet). */
  readonly lastWebhook?: { readonly at: string; readonly outcome: string } | null;
}

function webhookLine(last: BusinessPageOptions['lastWebhook'], generatedAt: string): string {
  if (last === undefined) return '';
  if (last === null) return '<p class="webhook">Last webhook: none received yet (polling alone keeps this business in sync).</p>';
  return `<p class="webhook">Last webhook: ${escapeHtml(last.outcome.replace(/_/g, ' '))}, ${escapeHtml(formatAgo(last.at, generatedAt))}.</p>`;
}

/** One business's own page (`/business/NAME`): its stop, its chart of the last hour, every stream. */
export function renderBusinessPage(business: BusinessStatus, generatedAt: string, options: BusinessPageOptions): string {
  const rows = business.streams
    .map((status) => streamRow(status, generatedAt, { waitingLong: attentionOf(status, options.lateAfterSeconds) === 'waiting_long' }))
    .join('');
  const main =
    `<section class="business" data-business="${escapeHtml(business.name)}">` +
    (business.failed === null ? '' : stoppedNotice(business.name, business.failed)) +
    webhookLine(options.lastWebhook, generatedAt) +
    `<h2>Records synced per minute, last hour</h2>${renderActivityChart(business.name, business.activity)}` +
    `<h2>Streams</h2>${rows === '' ? '<p>No stream has reported yet.</p>' : `<table><thead>${headRow(false)}</thead><tbody>${rows}</tbody></table>`}` +
    '</section>';
  const back = '<p class="nav"><a href="../">← every business: the summary</a></p>';
  return renderPage({ title: `callsync status: ${business.name}`, generatedAt, base: '../', header: back, main }, options);
}
