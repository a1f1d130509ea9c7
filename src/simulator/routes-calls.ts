import { CallList } from './call-list.js';
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
 * neither skips nor repeats while calls arrive, in either order.
 */
export function callsRoute(state: SimState, r: V1Request): RouteResult {
  const parsed = parseCallsPaging(r.query);
  if (!parsed.ok) return fail(400, parsed.message);
  const paging = parsed.value;
  const list = new CallList(r.business.calls, state.v1Order);
  const total = list.total;
  if (paging.mode === 'offset') {
    const slots = list.atOffset(paging.offset, paging.limit);
    const has = Math.min(paging.offset, total) + slots.length < total;
    return ok(`{"calls":[${json(r, slots)}],"total":${total},"has_more":${has}}`);
  }
  if (paging.mode === 'page') {
    const from = (paging.page - 1) * paging.perPage;
    const slots = list.atOffset(from, paging.perPage);
    const has = Math.min(from, total) + slots.length < total;
    const meta = `"total":${total},"has_more":${has},"page":${paging.page},"per_page":${paging.perPage}`;
    return ok(`{"calls":[${json(r, slots)}],${meta}}`);
  }
  let from = list.start;
  if (paging.cursor !== '') {
    const cursor = decodeCursor(state.cursorSecret, r.business.index, paging.cursor);
    if (cursor === undefined || !list.validPosition(cursor.position)) return fail(400, 'Invalid request: cursor is not valid');
    if (state.cursorTtlMs !== undefined && r.nowMs - cursor.issuedMs > state.cursorTtlMs) {
      state.counters.fault('expiredCursors');
      return fail(400, 'Invalid request: cursor expired; start a new walk');
    }
    from = cursor.position;
  }
  const slice = list.fromCursor(from, paging.limit);
  const next = encodeCursor(state.cursorSecret, r.business.index, slice.next, r.nowMs);
  const nextField = slice.hasMore || state.cursorOnLastPage ? `,"next_cursor":"${next}"` : '';
  return ok(`{"calls":[${json(r, slice.slots)}],"total":${total},"has_more":${slice.hasMore}${nextField}}`);
}
