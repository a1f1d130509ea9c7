import { decodeCursor, encodeCursor } from './cursor.js';
import { parseCallsPaging } from './paging.js';
import type { RouteResult, SimState, V1Request } from './state.js';
import { fail, ok } from './state.js';

function page(r: V1Request, from: number, count: number): string {
  const store = r.business.calls;
  const end = Math.min(store.length, from + count);
  const parts: string[] = [];
  for (let i = from; i < end; i++) parts.push(store.json(i));
  return parts.join(',');
}

/**
 * GET /calls, oldest first (ascending created_at, then id). Positions are indexes into an
 * append-only list, so a cursor walk neither skips nor repeats while calls arrive.
 */
export function callsRoute(state: SimState, r: V1Request): RouteResult {
  const parsed = parseCallsPaging(r.query);
  if (!parsed.ok) return fail(400, parsed.message);
  const paging = parsed.value;
  const total = r.business.calls.length;
  if (paging.mode === 'offset') {
    const from = Math.min(paging.offset, total);
    const has = from + paging.limit < total;
    return ok(`{"calls":[${page(r, from, paging.limit)}],"total":${total},"has_more":${has}}`);
  }
  if (paging.mode === 'page') {
    const from = Math.min((paging.page - 1) * paging.perPage, total);
    const has = from + paging.perPage < total;
    const meta = `"total":${total},"has_more":${has},"page":${paging.page},"per_page":${paging.perPage}`;
    return ok(`{"calls":[${page(r, from, paging.perPage)}],${meta}}`);
  }
  let from = 0;
  if (paging.cursor !== '') {
    const cursor = decodeCursor(state.cursorSecret, r.business.index, paging.cursor);
    if (cursor === undefined || cursor.position > total) return fail(400, 'Invalid request: cursor is not valid');
    if (state.cursorTtlMs !== undefined && r.nowMs - cursor.issuedMs > state.cursorTtlMs) {
      state.counters.fault('expiredCursors');
      return fail(400, 'Invalid request: cursor expired; start a new walk');
    }
    from = cursor.position;
  }
  const end = Math.min(total, from + paging.limit);
  const has = end < total;
  const next = encodeCursor(state.cursorSecret, r.business.index, end, r.nowMs);
  const nextField = has || state.cursorOnLastPage ? `,"next_cursor":"${next}"` : '';
  return ok(`{"calls":[${page(r, from, paging.limit)}],"total":${total},"has_more":${has}${nextField}}`);
}
