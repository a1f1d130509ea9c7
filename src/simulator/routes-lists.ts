import { parseOffset } from './paging.js';
import { numberV1, smsV1 } from './render.js';
import type { RouteResult, SimState, V1Request } from './state.js';
import { fail, ok } from './state.js';

/** GET /numbers: every tracked number, no paging. */
export function numbersRoute(r: V1Request): RouteResult {
  const numbers = r.business.numbers.map((n) => numberV1(n));
  return ok(JSON.stringify({ numbers, total: numbers.length }));
}

/** GET /sms: offset paging in the v1 order; a legacy endpoint by default (no `data` wrapper). */
export function smsRoute(state: SimState, r: V1Request): RouteResult {
  const parsed = parseOffset(r.query);
  if (!parsed.ok) return fail(400, parsed.message);
  const { offset } = parsed.value;
  const limit = Math.min(parsed.value.limit, state.v1LimitCap ?? parsed.value.limit);
  const ordered = state.v1Order === 'oldest' ? r.business.sms : [...r.business.sms].reverse();
  const messages = ordered.slice(offset, offset + limit).map((m) => smsV1(m));
  return ok(JSON.stringify({ messages, total: r.business.sms.length }));
}
