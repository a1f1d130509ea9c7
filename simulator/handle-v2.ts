import type { IncomingMessage, ServerResponse } from 'node:http';
import { admit } from './admit.js';
import type { BusinessData } from './business.js';
import { ordinaryError } from './envelope.js';
import { NO_FAULT } from './faults.js';
import { callV2Json } from './render.js';
import type { Reply } from './responder.js';
import { serveAdmitted } from './serve.js';
import type { SimState } from './state.js';

/** v2 page size: default 25 (spec section 8); above 1000 is a 400. */
const V2_DEFAULT_LIMIT = 25;
const V2_MAX_LIMIT = 1000;

function callsJson(business: BusinessData, limit: number): string {
  const store = business.calls;
  const parts: string[] = [];
  for (let i = store.length - 1; i >= 0 && parts.length < limit; i--) {
    if (store.isDeleted(i)) continue;
    parts.push(callV2Json(store.model(i), business.render));
  }
  return parts.join(',');
}

function v2Reply(state: SimState, business: BusinessData, method: string, path: string, query: URLSearchParams, headers: Record<string, string>): Reply {
  const text = query.get('limit');
  const limit = text === null ? V2_DEFAULT_LIMIT : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(limit >= 1 && limit <= V2_MAX_LIMIT)) {
    return { status: 400, body: ordinaryError(400, `Invalid request: limit must be an integer from 1 to ${V2_MAX_LIMIT}`), headers };
  }
  // A capped server answers as if asked for fewer, without a word.
  const served = Math.min(limit, state.v2LimitCap ?? limit);
  if (method === 'GET' && path === '/api/all/voicemails') {
    return { status: 200, body: `{"voicemail":[${business.voicemails.newestJson(served).join(',')}]}`, headers };
  }
  if (method === 'GET' && path === '/api/all/calls') {
    return { status: 200, body: `{"calls":[${callsJson(business, served)}]}`, headers };
  }
  return { status: 404, body: ordinaryError(404, 'Not found'), headers };
}

/**
 * v2 under the path prefix: bearer token per business; `limit` only; newest first. v2 requests
 * take from the business's v1 bucket and carry the same headers; the 429 storm does not apply.
 */
export async function handleV2(state: SimState, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
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
  const method = req.method ?? 'GET';
  const routed = method === 'GET' ? path : `${method} ${path}`;
  await serveAdmitted(state, req, res, routed, admission.headers, () => v2Reply(state, business, method, path, query, admission.headers));
}
