import type { IncomingMessage, ServerResponse } from 'node:http';
import { admit } from './admit.js';
import type { BusinessData } from './business.js';
import { ordinaryError } from './envelope.js';
import { NO_FAULT } from './faults.js';
import { callV2Json } from './render.js';
import type { SimState } from './state.js';

/** v2 page size: default 25 (spec section 8); above 1000 is a 400. */
export const V2_DEFAULT_LIMIT = 25;
export const V2_MAX_LIMIT = 1000;

function callsJson(business: BusinessData, limit: number): string {
  const store = business.calls;
  const parts: string[] = [];
  for (let i = store.length - 1; i >= 0 && parts.length < limit; i--) {
    if (store.isDeleted(i)) continue;
    parts.push(callV2Json(store.model(i), business.render));
  }
  return parts.join(',');
}

/**
 * v2 under the path prefix: bearer token per business; `limit` only; newest first. v2 requests
 * take from the business's v1 bucket and carry the same headers; the 429 storm does not apply.
 */
export function handleV2(state: SimState, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): void {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  const business = state.businesses.find((b) => b.credentials.v2Token === token);
  if (business === undefined) {
    state.counters.unauthenticated();
    state.responder.send(res, { status: 401, body: ordinaryError(401, 'Invalid bearer token') }, NO_FAULT);
    return;
  }
  const nowMs = state.clock();
  state.counters.request(business.name, 'v2Requests');
  const admission = admit(state, business.name, nowMs, false);
  if (admission.refused !== undefined) {
    state.responder.send(res, admission.refused, NO_FAULT);
    return;
  }
  const fault = state.faults.plan();
  const headers = admission.headers;
  const text = query.get('limit');
  const limit = text === null ? V2_DEFAULT_LIMIT : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(limit >= 1 && limit <= V2_MAX_LIMIT)) {
    const body = ordinaryError(400, `Invalid request: limit must be an integer from 1 to ${V2_MAX_LIMIT}`);
    state.responder.send(res, { status: 400, body, headers }, fault);
    return;
  }
  // A capped server answers as if asked for fewer, without a word.
  const served = Math.min(limit, state.v2LimitCap ?? limit);
  if (req.method === 'GET' && path === '/api/all/voicemails') {
    const body = `{"voicemail":[${business.voicemails.newestJson(served).join(',')}]}`;
    state.responder.send(res, { status: 200, body, headers }, fault);
  } else if (req.method === 'GET' && path === '/api/all/calls') {
    state.responder.send(res, { status: 200, body: `{"calls":[${callsJson(business, served)}]}`, headers }, fault);
  } else {
    state.responder.send(res, { status: 404, body: ordinaryError(404, 'Not found'), headers }, fault);
  }
}
