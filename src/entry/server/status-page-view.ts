import type { StatusSnapshot, StreamStatus } from '../../engine/state/index.js';
import { businessMatches, parseStates, streamMatches, type StateChoice, type StatusFilter } from './status-filter.js';
import { byLag, summarize, type StatusSummary } from './status-summary.js';

/** Streams listed per page of the summary page; one screen with room for the summary above. */
export const STREAMS_PER_PAGE = 50;
/** Matching business names shown before "and N more". */
const NAMES_SHOWN = 20;
/** Stopped businesses shown before "and N more" (each is also in the list of streams, as auth failed). */
const STOPPED_SHOWN = 5;

/** The summary page's query: `?business=&state=&page=`. */
export interface SummaryQuery {
  /** Names containing this text, any case. */
  readonly business?: string;
  /** As typed (`needs_person` when not given), kept for the links. */
  readonly state: string;
  readonly states: ReadonlySet<StateChoice>;
  /** 1-based. */
  readonly page: number;
}

const DEFAULT_STATE = 'needs_person';

export function parseSummaryQuery(params: URLSearchParams): SummaryQuery | { readonly error: string } {
  const state = params.get('state')?.trim() || DEFAULT_STATE;
  const states = parseStates(state);
  if ('error' in states) return states;
  const pageText = params.get('page');
  const page = pageText === null || pageText === '' ? 1 : Number(pageText);
  if (!Number.isInteger(page) || page < 1) return { error: `page: expected a whole number from 1, got ${JSON.stringify(pageText)}` };
  const business = params.get('business')?.trim();
  return { ...(business === undefined || business === '' ? {} : { business }), state, states, page };
}

export interface SummaryView {
  readonly generatedAt: string;
  readonly summary: StatusSummary;
  readonly query: SummaryQuery;
  /** This page's streams, most behind first. */
  readonly rows: readonly StreamStatus[];
  /** Streams the query matches, over every page. */
  readonly matched: number;
  readonly pages: number;
  /** Stopped businesses the business filter keeps (the first {@link STOPPED_SHOWN}), and how many there are. */
  readonly stopped: readonly { readonly name: string; readonly reason: string }[];
  readonly stoppedMatched: number;
  /** With a business filter: the names it matches (the first {@link NAMES_SHOWN}) and how many. */
  readonly businesses: readonly string[];
  readonly businessesMatched: number;
}

/** Everything the summary page shows, from the whole snapshot (activity is not needed). */
export function summaryView(snapshot: StatusSnapshot, query: SummaryQuery, lateAfter: number): SummaryView {
  const filter: StatusFilter = { states: query.states, ...(query.business === undefined ? {} : { business: query.business }) };
  const matching: StreamStatus[] = [];
  const stopped: { name: string; reason: string }[] = [];
  const businesses: string[] = [];
  for (const business of snapshot.businesses) {
    if (!businessMatches(business.name, filter)) continue;
    businesses.push(business.name);
    if (business.failed !== null) stopped.push({ name: business.name, reason: business.failed });
    for (const status of business.streams) if (streamMatches(status, filter, lateAfter)) matching.push(status);
  }
  matching.sort(byLag);
  const pages = Math.max(1, Math.ceil(matching.length / STREAMS_PER_PAGE));
  const page = Math.min(query.page, pages);
  return {
    generatedAt: snapshot.generatedAt,
    summary: summarize(snapshot, lateAfter),
    query: { ...query, page },
    rows: matching.slice((page - 1) * STREAMS_PER_PAGE, page * STREAMS_PER_PAGE),
    matched: matching.length,
    pages,
    stopped: stopped.slice(0, STOPPED_SHOWN),
    stoppedMatched: stopped.length,
    businesses: query.business === undefined ? [] : businesses.slice(0, NAMES_SHOWN),
    businessesMatched: query.business === undefined ? 0 : businesses.length,
  };
}
