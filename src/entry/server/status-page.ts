import { STREAM_STATES } from '../../engine/state/index.js';
import { formatCount, formatDuration } from './format.js';
import { escapeHtml } from './html.js';
import { renderPage, type PageOptions } from './page-shell.js';
import { CHOICE_LABELS, describeStates, type StateChoice } from './status-filter.js';
import { STREAMS_PER_PAGE, type SummaryQuery, type SummaryView } from './status-page-view.js';
import { businessHref, headRow, streamRow } from './status-rows.js';
import { attentionOf, SUMMARY_ORDER, summaryCount } from './status-summary.js';

type StatusPageOptions = PageOptions;

/** `?business=acme&state=failed&page=2`, leaving out what is default. */
function href(query: Pick<SummaryQuery, 'business' | 'state'>, page = 1): string {
  const params = new URLSearchParams();
  if (query.business !== undefined) params.set('business', query.business);
  if (query.state !== 'needs_person') params.set('state', query.state);
  if (page > 1) params.set('page', String(page));
  const text = params.toString();
  return text === '' ? './' : `?${text}`;
}

function tile(view: SummaryView, choice: StateChoice): string {
  const count = summaryCount(view.summary, choice);
  const current = view.query.state === choice ? ' aria-current="page"' : '';
  const colour = (STREAM_STATES as readonly string[]).includes(choice) ? `state-${choice}` : choice === 'waiting_long' ? 'state-waiting_long' : 'state-needs';
  const quiet = count === 0 ? ' zero' : '';
  return (
    `<a class="tile ${colour}${quiet}" data-count="${choice}" href="${escapeHtml(href({ business: view.query.business, state: choice }))}"${current}>` +
    `<strong>${escapeHtml(formatCount(count))}</strong> ${escapeHtml(CHOICE_LABELS[choice])}</a>`
  );
}

function summarySection(view: SummaryView): string {
  const { summary } = view;
  const stopped = summary.stoppedBusinesses === 0 ? '' : `, <strong>${escapeHtml(formatCount(summary.stoppedBusinesses))}</strong> stopped`;
  return (
    '<section class="summary" aria-label="Summary">' +
    `<p class="totals"><strong>${escapeHtml(formatCount(summary.businesses))}</strong> businesses${stopped}, ` +
    `<strong>${escapeHtml(formatCount(summary.streams))}</strong> streams. ` +
    `Waiting long: no successful run for ${escapeHtml(formatDuration(summary.lateAfterSeconds))} or more.</p>` +
    `<nav class="tiles">${tile(view, 'needs_person')}${SUMMARY_ORDER.map((choice) => tile(view, choice)).join('')}</nav>` +
    '</section>'
  );
}

function filterForm(view: SummaryView): string {
  const options = (['needs_person', ...SUMMARY_ORDER] as const)
    .map((choice) => `<option value="${choice}"${view.query.state === choice ? ' selected' : ''}>${escapeHtml(CHOICE_LABELS[choice])}</option>`)
    .join('');
  return (
    '<form class="filter" method="get" action="">' +
    `<label>Business <input type="search" name="business" value="${escapeHtml(view.query.business ?? '')}" placeholder="name contains…"></label> ` +
    `<label>Streams <select name="state">${options}</select></label> ` +
    '<button type="submit">Show</button>' +
    (view.query.business === undefined && view.query.state === 'needs_person' ? '' : ' <a href="./">clear</a>') +
    '</form>'
  );
}

function pager(view: SummaryView): string {
  if (view.matched === 0) return '';
  const { page } = view.query;
  const first = (page - 1) * STREAMS_PER_PAGE + 1;
  const last = first + view.rows.length - 1;
  const previous = page > 1 ? `<a rel="prev" href="${escapeHtml(href(view.query, page - 1))}">← previous</a>` : '';
  const next = page < view.pages ? `<a rel="next" href="${escapeHtml(href(view.query, page + 1))}">next →</a>` : '';
  const links = [previous, next].filter((link) => link !== '').join(' · ');
  return `<p class="pager">Streams ${formatCount(first)}–${formatCount(last)} of ${formatCount(view.matched)} (page ${page} of ${view.pages})${links === '' ? '' : `. ${links}`}</p>`;
}

function streamsSection(view: SummaryView): string {
  const needs = view.query.state === 'needs_person';
  const within = view.query.business === undefined ? '' : ` of businesses containing “${escapeHtml(view.query.business)}”`;
  const title = needs ? 'Needs a person' : `Streams ${describeStates(view.query.states)}`;
  const heading = `<h2>${escapeHtml(title)}${within}: ${escapeHtml(formatCount(view.matched))} streams, most behind first</h2>`;
  if (view.matched === 0) {
    const calm = needs ? `Nothing needs a person${within}.` : `No stream${within} is ${escapeHtml(describeStates(view.query.states))}.`;
    return `<section class="streams">${heading}<p class="calm">${calm}</p></section>`;
  }
  const late = view.summary.lateAfterSeconds;
  const rows = view.rows
    .map((status) => streamRow(status, view.generatedAt, { business: { base: '' }, waitingLong: attentionOf(status, late) === 'waiting_long' }))
    .join('');
  const bottom = view.pages > 1 ? pager(view) : '';
  return `<section class="streams">${heading}${pager(view)}<table><thead>${headRow(true)}</thead><tbody>${rows}</tbody></table>${bottom}</section>`;
}

function more(shown: number, total: number): string {
  return total > shown ? `<p class="more">and ${escapeHtml(formatCount(total - shown))} more: narrow the business filter.</p>` : '';
}

/** One line per stopped business (why, and the command that lifts the stop once the key is fixed). */
function stoppedSection(view: SummaryView): string {
  if (view.stoppedMatched === 0) return '';
  const items = view.stopped
    .map(
      ({ name, reason }) =>
        `<li data-business="${escapeHtml(name)}"><a href="${escapeHtml(businessHref(name, ''))}">${escapeHtml(name)}</a>: ${escapeHtml(reason)}; ` +
        `then <code>callsync resume ${escapeHtml(name)}</code></li>`,
    )
    .join('');
  return (
    `<section class="stopped" role="alert"><h2>Stopped businesses: ${escapeHtml(formatCount(view.stoppedMatched))}</h2>` +
    '<p>Fix: correct each one’s key (apiKey, session or v2Token), then resume it.</p>' +
    `<ul>${items}</ul>${more(view.stopped.length, view.stoppedMatched)}</section>`
  );
}

function businessesSection(view: SummaryView): string {
  if (view.query.business === undefined) return '';
  const links = view.businesses.map((name) => `<li><a href="${escapeHtml(businessHref(name, ''))}">${escapeHtml(name)}</a></li>`).join('');
  return (
    `<section class="matches"><h2>Businesses containing “${escapeHtml(view.query.business)}”: ${escapeHtml(formatCount(view.businessesMatched))}</h2>` +
    `${links === '' ? '<p>None.</p>' : `<ul class="names">${links}</ul>`}${more(view.businesses.length, view.businessesMatched)}` +
    '<p class="hint">Each business’s own page has its chart of the last hour and every stream.</p></section>'
  );
}

/**
 * The status page (`/`): the counts by state, then only the streams the query asks for (by
 * default those that need a person), most behind first, a page at a time; stopped businesses;
 * with a business filter, links to the matching businesses' own pages. No per-business chart here.
 */
export function renderStatusPage(view: SummaryView, options: StatusPageOptions = {}): string {
  const main =
    view.summary.businesses === 0
      ? '<p>No business has reported yet. Workers publish status once their first job starts.</p>'
      : summarySection(view) + filterForm(view) + stoppedSection(view) + streamsSection(view) + businessesSection(view);
  return renderPage({ title: 'callsync status', generatedAt: view.generatedAt, base: '', main }, options);
}
