import type { StreamState } from '../../engine/state/index.js';

/** Background and text colour per state: green is healthy, blue busy, amber waiting, red needs a human. */
const STATE_COLOURS: Readonly<Record<StreamState, { readonly bg: string; readonly fg: string }>> = {
  idle: { bg: '#e3f4e6', fg: '#1d5b2a' },
  syncing: { bg: '#e0ecfb', fg: '#1a4f8f' },
  waiting_for_budget: { bg: '#fdf1d6', fg: '#7a5200' },
  auth_failed: { bg: '#f9d7d7', fg: '#8a1111' },
  gap_warning: { bg: '#fde3cf', fg: '#8a3d00' },
  drift: { bg: '#ecdcf5', fg: '#5b1f78' },
  failed: { bg: '#f9d7d7', fg: '#8a1111' },
};

/** The "needs a person" tile, and streams waiting long (their state looks fine, their lag does not). */
const NEEDS_PERSON = { bg: '#8a1111', fg: '#fff' };
const WAITING_LONG = { bg: '#fde3cf', fg: '#8a3d00' };

const stateRules = Object.entries(STATE_COLOURS)
  .map(([state, { bg, fg }]) => `.state-${state}{background:${bg};color:${fg}}`)
  .join('');

/** The page's only stylesheet, inline so the page needs no other request. */
export const STATUS_PAGE_CSS =
  'body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#222;background:#fff}' +
  'h1{font-size:1.4rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}' +
  '.meta{color:#666;margin:0 0 1rem}' +
  'table{border-collapse:collapse;width:100%;margin:.5rem 0}' +
  'th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #ddd;vertical-align:top}' +
  'td.num{text-align:right;font-variant-numeric:tabular-nums}' +
  '.state{font-weight:600;white-space:nowrap;border-radius:3px}' +
  '.error{color:#8a1111;max-width:40rem;overflow-wrap:anywhere}.warning{color:#8a3d00;overflow-wrap:anywhere}' +
  '.business-failed{background:#f9d7d7;color:#8a1111;padding:.5rem;border-radius:3px;font-weight:600}' +
  '.chart rect{fill:#4a7fc1}.chart .axis{stroke:#999}.chart .tick{fill:#666;font-size:10px}.fix{color:#333;font-style:italic}.chart-caption{color:#666;margin:0;font-size:12px}' +
  '.legend li{margin:.2rem 0}.legend .state{padding:0 .3rem}' +
  '.totals{margin:.25rem 0 .6rem}.tiles{display:flex;flex-wrap:wrap;gap:.5rem;margin:0 0 1rem}' +
  '.tile{display:block;padding:.35rem .6rem;border-radius:4px;text-decoration:none;border:2px solid transparent;font-size:13px}' +
  '.tile strong{display:block;font-size:1.5rem;line-height:1.1}.tile.zero{opacity:.55}.tile[aria-current]{border-color:#222}' +
  `.state-needs{background:${NEEDS_PERSON.bg};color:${NEEDS_PERSON.fg}}.state-waiting_long{background:${WAITING_LONG.bg};color:${WAITING_LONG.fg}}` +
  '.filter{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;margin:0 0 1rem;padding:.5rem .75rem;background:#f4f4f4;border-radius:4px}' +
  '.filter input,.filter select,.filter button{font:inherit;padding:.2rem .4rem}' +
  '.pager{color:#444;margin:.25rem 0}.nav{margin:.25rem 0}.calm{background:#e3f4e6;color:#1d5b2a;padding:.5rem;border-radius:3px}' +
  'td.late{color:#8a1111;font-weight:600}td.message{max-width:36rem}td.num,td.name{white-space:nowrap}' +
  '.names{list-style:none;padding:0}.stopped{background:#f9d7d7;color:#8a1111;padding:.1rem .75rem .4rem;border-radius:4px;margin:0 0 1rem}' +
  '.stopped h2{margin:.4rem 0 .2rem}.stopped p{margin:.2rem 0}.stopped ul{margin:.2rem 0;padding-left:1.2rem}.stopped a{color:inherit;font-weight:600}.stopped code{font-size:12px}' +
  '.names{display:flex;flex-wrap:wrap;gap:.3rem 1rem}.more,.hint{color:#666}' +
  stateRules;
