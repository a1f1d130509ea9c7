import type { ApiKeyRecord } from './api-keys.js';
import { MAX_ACTIVE_KEYS, keyPrefix } from './api-keys.js';
import { readJsonObject, requiredString } from './body.js';
import type { RouteResult, SimState, V1Request } from './state.js';
import { fail, ok } from './state.js';

function iso(ms: number | null): string | null {
  return ms === null ? null : `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function listed(key: ApiKeyRecord): Record<string, unknown> {
  return {
    id: key.id,
    name: key.name,
    prefix: keyPrefix(key.secret),
    created_at: iso(key.createdAtMs),
    last_used_at: iso(key.lastUsedAtMs),
  };
}

/**
 * Key management: `GET /api-keys` (active keys, prefixes only), `POST /api-keys` `{name}`
 * (the secret appears once, in this response), `DELETE /api-keys/:id`. Admin or Owner only:
 * API keys act as Admin, the viewer's session gets 403.
 */
export async function keysRoute(state: SimState, r: V1Request): Promise<RouteResult> {
  if (r.caller.kind === 'session' && r.caller.role === 'viewer') {
    return fail(403, 'Forbidden: managing API keys needs the Admin or Owner role');
  }
  const business = r.business.name;
  if (r.path === '/api-keys' && r.method === 'GET') {
    const keys = state.keys.active(business).map(listed);
    return ok(JSON.stringify({ api_keys: keys, total: keys.length }));
  }
  if (r.path === '/api-keys' && r.method === 'POST') {
    const body = await readJsonObject(r.req);
    if (body === undefined) return fail(400, 'Invalid request: body must be a JSON object');
    const name = requiredString(body, 'name');
    if (typeof name !== 'string') return fail(400, name.error);
    const key = state.keys.create(business, name, r.nowMs);
    if (key === undefined) {
      return fail(400, `Invalid request: at most ${MAX_ACTIVE_KEYS} active API keys per business; revoke one first`);
    }
    return ok(JSON.stringify({ ...listed(key), key: key.secret }), 201);
  }
  const id = /^\/api-keys\/([^/]+)$/.exec(r.path)?.[1];
  if (id !== undefined && r.method === 'DELETE') {
    if (!state.keys.revoke(business, decodeURIComponent(id), r.nowMs)) return fail(404, 'API key not found');
    return ok(JSON.stringify({ id: decodeURIComponent(id), revoked: true, revoked_at: iso(r.nowMs) }));
  }
  return fail(404, 'Not found');
}
