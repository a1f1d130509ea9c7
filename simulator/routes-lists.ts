import { listedShare } from './hostile.js';
import { parseOffset } from './paging.js';
import { numberV1, smsV1 } from './render.js';
import type { RouteResult, SimState, V1Request } from './state.js';
import { fail, ok } from './state.js';

/** GET /numbers: every tracked number, no paging. */
export function numbersRoute(state: SimState, r: V1Request): RouteResult {
  const listed = listedShare(state.hostile);
  const numbers = r.business.numbers.filter((_, i) => listed?.(i) ?? true).map((n) => numberV1(n));
  return ok(JSON.stringify({ numbers, total: numbers.length }));
}

/** GET /sms: offset paging in the v1 order; a legacy endpoint by default (no `data` wrapper). */
export function smsRoute(state: SimState, r: V1Request): RouteResult {
  const parsed = parseOffset(r.query);
  if (!parsed.ok) return fail(400, parsed.message);
  const { offset } = parsed.value;
  const limit = Math.min(parsed.value.limit, state.v1LimitCap ?? parsed.value.limit);
  const listed = listedShare(state.hostile);
  const all = listed === undefined ? r.business.sms : r.business.sms.filter((_, i) => listed(i));
  const ordered = state.v1Order === 'oldest' ? all : [...all].reverse();
  const messages = ordered.slice(offset, offset + limit).map((m) => smsV1(m));
  return ok(JSON.stringify({ messages, total: all.length }));
}
