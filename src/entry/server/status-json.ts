import type { BusinessStatus, StatusSnapshot } from '../../engine/state/index.js';
import { filterBusinesses, parseStates, type StatusFilter } from './status-filter.js';
import { summarize, type StatusSummary } from './status-summary.js';

/** Businesses per `/status` page when `limit` is not given, and the most one page holds. */
export const STATUS_PAGE_LIMIT = 1_000;

/** A parsed `/status` query: which streams, and which page of the businesses that have them. */
export interface StatusQuery {
  readonly filter: StatusFilter;
  readonly limit: number;
  /** The page starts after this business name (decoded from `cursor`). */
  readonly after?: string;
}

/**
 * The body of `GET /status`: the summary of the whole deployment, then one page of businesses
 * (by name) with the streams the filter keeps. Without a query and below
 * {@link STATUS_PAGE_LIMIT} businesses, `businesses` is every business, as before paging.
 */
export interface StatusDocument extends StatusSnapshot {
  readonly summary: StatusSummary;
  /** What the filter kept, over every page. */
  readonly matched: { readonly businesses: number; readonly streams: number };
  /** Pass as `cursor` for the next page; null on the last. */
  readonly nextCursor: string | null;
}

const PARAMS = ['state', 'business', 'limit', 'cursor'] as const;

function encodeCursor(after: string): string {
  return Buffer.from(after, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const after = Buffer.from(cursor, 'base64url').toString('utf8');
  return encodeCursor(after) === cursor ? after : undefined;
}

/** Reads `?state=&business=&limit=&cursor=`; an error names the parameter and what it takes. */
export function parseStatusQuery(params: URLSearchParams): StatusQuery | { readonly error: string } {
  const unknown = [...params.keys()].find((key) => !(PARAMS as readonly string[]).includes(key));
  if (unknown !== undefined) return { error: `unknown query parameter ${JSON.stringify(unknown)}; /status takes ${PARAMS.join(', ')}` };
  const stateText = params.get('state');
  const states = stateText === null ? undefined : parseStates(stateText);
  if (states !== undefined && 'error' in states) return states;
  const business = params.get('business')?.trim();
  const limitText = params.get('limit');
  const limit = limitText === null ? STATUS_PAGE_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > STATUS_PAGE_LIMIT) {
    return { error: `limit: expected a whole number of businesses from 1 to ${STATUS_PAGE_LIMIT}, got ${JSON.stringify(limitText)}` };
  }
  const cursor = params.get('cursor');
  const after = cursor === null ? undefined : decodeCursor(cursor);
  if (cursor !== null && after === undefined)
    return { error: 'cursor: not one this server hands out; use the nextCursor of the previous page, or leave it out to start' };
  return {
    filter: { ...(states === undefined ? {} : { states }), ...(business === undefined || business === '' ? {} : { business }) },
    limit,
    ...(after === undefined ? {} : { after }),
  };
}

/**
 * One page of the `/status` document, without activity: the caller reads it for the page's
 * businesses only (see `readActivity`), so a page costs the same at 100 or 10,000 businesses.
 */
export function statusDocument(snapshot: StatusSnapshot, query: StatusQuery, lateAfter: number): StatusDocument {
  const kept = filterBusinesses(snapshot, query.filter, lateAfter);
  const after = query.after;
  const start = after === undefined ? 0 : kept.findIndex((business) => business.name > after);
  const from = start === -1 ? kept.length : start;
  const page: BusinessStatus[] = kept.slice(from, from + query.limit);
  const last = page.at(-1);
  return {
    generatedAt: snapshot.generatedAt,
    summary: summarize(snapshot, lateAfter),
    matched: { businesses: kept.length, streams: kept.reduce((sum, business) => sum + business.streams.length, 0) },
    businesses: page,
    nextCursor: last !== undefined && from + page.length < kept.length ? encodeCursor(last.name) : null,
  };
}
