import { brokenCursorPage } from './broken-paging.js';
import { CallList } from './call-list.js';
import { listedShare, takeShortPage } from './hostile.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { parseCallsPaging } from './paging.js';
import type { RouteResult, SimState, V1Request } from './state.js';
import { fail, ok } from './state.js';

function json(r: V1Request, slots: readonly number[]): string {
  return slots.map((i) => r.business.calls.json(i)).join(',');
}

/**
 * GET /calls in the configured order (`v1Order`; oldest first by default, ascending created_at,
 * then id). Cursor positions are slot boundaries of an append-only store, so a cursor walk
 * neither skips nor repeats while calls arrive, in either order. `v1LimitCap` and the
 * `brokenPaging` switches make it a server that does not keep the contract.
 */
export function callsRoute(state: SimState, r: V1Request): RouteResult {
  const parsed = parseCallsPaging(r.query);
  if (!parsed.ok) return fail(400, parsed.message);
  const paging = parsed.value;
  const broken = state.brokenPaging;
  const cap = (size: number): number => Math.min(size, state.v1LimitCap ?? size);
  const short = takeShortPage(state.hostile);
  // What this answer holds of a page of `size`: all of it, unless it is cut short.
  const served = (size: number): number => Math.min(size, short ?? size);
  const list = new CallList(r.business.calls, state.v1Order, listedShare(state.hostile));
  const total = list.total;
  const shownTotal = broken.negativeTotal ? -1 : total;
  if (paging.mode === 'offset' || paging.mode === 'page') {
    const size = cap(paging.mode === 'offset' ? paging.limit : paging.perPage);
    const page = broken.ignoreOffset || paging.mode === 'offset' ? 1 : paging.page;
    const from = broken.ignoreOffset ? 0 : paging.mode === 'offset' ? paging.offset : (page - 1) * size;
    const slots = list.atOffset(from, served(size));
    const has = Math.min(from, total) + slots.length < total || broken.emptyPagesForever;
    const meta = paging.mode === 'page' ? `,"page":${page},"per_page":${size}` : '';
    return ok(`{"calls":[${json(r, slots)}],"total":${shownTotal},"has_more":${has}${meta}}`);
  }
  let from = list.start;
  if (paging.cursor !== '') {
    const cursor = decodeCursor(state.cursorSecret, r.business.index, paging.cursor);
    if (cursor === undefined || !list.validPosition(cursor.position)) return fail(400, 'Invalid request: cursor is not valid');
    if (state.cursorTtlMs !== undefined && !state.stableCursors && r.nowMs - cursor.issuedMs > state.cursorTtlMs) {
      state.counters.fault('expiredCursors');
      return fail(400, 'Invalid request: cursor expired; start a new walk');
    }
    from = cursor.position;
  }
  const limit = cap(paging.limit);
  const slice = list.fromCursor(from, served(limit));
  const { next, hasMore } = brokenCursorPage(broken, list, { cursor: paging.cursor, from, limit }, slice);
  const minted = 'verbatim' in next ? next.verbatim : encodeCursor(state.cursorSecret, r.business.index, next.position, state.stableCursors ? 0 : r.nowMs);
  const nextText = minted.padEnd(state.hostile.hugeCursorBytes, '.');
  const nextField = hasMore || state.cursorOnLastPage ? `,"next_cursor":"${nextText}"` : '';
  return ok(`{"calls":[${json(r, slice.slots)}],"total":${shownTotal},"has_more":${hasMore}${nextField}}`);
}
