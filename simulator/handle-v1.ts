import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BusinessData } from './business.js';
import { envelope, ordinaryError } from './envelope.js';
import { NO_FAULT } from './faults.js';
import { login } from './login.js';
import { admit } from './admit.js';
import type { Reply } from './responder.js';
import { serveAdmitted } from './serve.js';
import { callsRoute } from './routes-calls.js';
import { keysRoute } from './routes-keys.js';
import { numbersRoute, smsRoute } from './routes-lists.js';
import type { Caller, RouteResult, SimState, V1Request } from './state.js';
import { fail } from './state.js';

function bearer(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

async function route(state: SimState, r: V1Request): Promise<RouteResult> {
  if (r.method === 'GET' && r.path === '/calls') return callsRoute(state, r);
  if (r.method === 'GET' && r.path === '/numbers') return numbersRoute(state, r);
  if (r.method === 'GET' && r.path === '/sms') return smsRoute(state, r);
  if (r.path === '/api-keys' || r.path.startsWith('/api-keys/')) return keysRoute(state, r);
  return fail(404, 'Not found');
}

type Resolved = { business: BusinessData; caller: Caller } | { error: string };

/** An Authorization header wins over a cookie; a bad header is a 401 even with a good cookie. */
function resolveCaller(state: SimState, req: IncomingMessage, nowMs: number): Resolved {
  const secret = bearer(req);
  if (secret !== undefined || req.headers.authorization !== undefined) {
    const key = secret === undefined ? undefined : state.keys.lookup(secret);
    if (key === undefined) return { error: 'Invalid API key' };
    if (key.revokedAtMs !== null) return { error: 'Invalid API key: the key has been revoked' };
    const business = state.businesses.find((b) => b.name === key.business);
    if (business === undefined) return { error: 'Invalid API key' };
    key.lastUsedAtMs = nowMs;
    return { business, caller: { kind: 'key', keyId: key.id } };
  }
  const session = state.sessions.fromCookieHeader(req.headers.cookie);
  const business = session && state.businesses.find((b) => b.name === session.business);
  if (session === undefined || business === undefined) return { error: 'Unauthorized: missing API key' };
  return { business, caller: { kind: 'session', role: session.role } };
}

/** Everything under `/api/v1`: login, then auth, rate limit, faults, routing, envelope. */
export async function handleV1(state: SimState, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const path = url.pathname.slice('/api/v1'.length).replace(/\/+$/, '') || '/';
  const method = req.method ?? 'GET';
  if (path === '/auth/login' && method === 'POST') {
    state.responder.send(res, await login(state, req), NO_FAULT);
    return;
  }
  const nowMs = state.clock();
  const resolved = resolveCaller(state, req, nowMs);
  if ('error' in resolved) {
    state.counters.unauthenticated();
    state.responder.send(res, { status: 401, body: ordinaryError(401, resolved.error) }, NO_FAULT);
    return;
  }
  const { business, caller } = resolved;
  const request: V1Request = { req, business, caller, method, path, query: url.searchParams, nowMs };
  if (caller.kind === 'session') {
    state.counters.request(business.name, 'sessionRequests');
    state.responder.send(res, envelope(await route(state, request), true, false, {}), NO_FAULT);
    return;
  }
  state.counters.request(business.name, 'apiKeyRequests');
  const admission = admit(state, business.name, nowMs, true);
  if (admission.refused !== undefined) {
    state.responder.send(res, admission.refused, NO_FAULT);
    return;
  }
  const legacy = state.legacyEnvelope.has(path);
  const produce = async (): Promise<Reply> => envelope(await route(state, request), false, legacy, admission.headers);
  await serveAdmitted(state, req, res, method === 'GET' ? path : `${method} ${path}`, admission.headers, produce);
}
