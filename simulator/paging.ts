/** Parses the paging parameters of v1 list endpoints. Every limit is checked, never clamped silently. */

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 500;

type CallsPaging =
  { mode: 'cursor'; limit: number; cursor: string } | { mode: 'offset'; limit: number; offset: number } | { mode: 'page'; page: number; perPage: number };

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

function integer(query: URLSearchParams, name: string, min: number, max: number): Parsed<number | undefined> {
  const text = query.get(name);
  if (text === null) return { ok: true, value: undefined };
  if (!/^\d+$/.test(text)) return { ok: false, message: `Invalid request: ${name} must be a non-negative integer` };
  const value = Number(text);
  if (value < min) return { ok: false, message: `Invalid request: ${name} must be at least ${min}` };
  if (value > max) return { ok: false, message: `Invalid request: ${name} must be at most ${max}` };
  return { ok: true, value };
}

/** `limit` and `offset`, as used by every offset-paged list. */
export function parseOffset(query: URLSearchParams): Parsed<{ limit: number; offset: number }> {
  const limit = integer(query, 'limit', 1, MAX_PAGE_SIZE);
  if (!limit.ok) return limit;
  const offset = integer(query, 'offset', 0, Number.MAX_SAFE_INTEGER);
  if (!offset.ok) return offset;
  return { ok: true, value: { limit: limit.value ?? DEFAULT_PAGE_SIZE, offset: offset.value ?? 0 } };
}

/**
 * Mode selection for `/calls`: `cursor` present (even empty) → cursor; else `offset` → offset;
 * else `page` or `per_page` → page; else a new cursor walk. Mixing modes is a 400.
 */
export function parseCallsPaging(query: URLSearchParams): Parsed<CallsPaging> {
  const hasCursor = query.has('cursor');
  const hasOffset = query.has('offset');
  const hasPage = query.has('page') || query.has('per_page');
  if ([hasCursor, hasOffset, hasPage].filter(Boolean).length > 1) {
    return { ok: false, message: 'Invalid request: use only one of cursor, offset or page/per_page' };
  }
  if (hasPage) {
    const page = integer(query, 'page', 1, Number.MAX_SAFE_INTEGER);
    if (!page.ok) return page;
    const perPage = integer(query, 'per_page', 1, MAX_PAGE_SIZE);
    if (!perPage.ok) return perPage;
    const limit = integer(query, 'limit', 1, MAX_PAGE_SIZE);
    if (!limit.ok) return limit;
    const size = perPage.value ?? limit.value ?? DEFAULT_PAGE_SIZE;
    return { ok: true, value: { mode: 'page', page: page.value ?? 1, perPage: size } };
  }
  const offset = parseOffset(query);
  if (!offset.ok) return offset;
  if (hasOffset) return { ok: true, value: { mode: 'offset', ...offset.value } };
  return { ok: true, value: { mode: 'cursor', limit: offset.value.limit, cursor: query.get('cursor') ?? '' } };
}
