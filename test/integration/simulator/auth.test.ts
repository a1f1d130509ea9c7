import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../simulator/index.js';
import { KEY_PREFIX, startSimulator } from '../../../simulator/index.js';
import type { CallsPage } from './http.js';
import { call, cursorWalk } from './http.js';

interface OrdinaryError {
  error: { code: string; message: string };
}
interface KeyList {
  data: { api_keys: { id: string; name: string; prefix: string; created_at: string; last_used_at: string | null }[]; total: number };
}

describe('simulator authentication and keys', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ businesses: 3, calls: 120, rateLimit: false });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('answers 401 in the ordinary error shape for a missing, unknown or malformed key', async () => {
    for (const token of [undefined, 'ctk_live_nope', '']) {
      const res = await call<OrdinaryError>(`${sim.baseUrl}/api/v1/calls`, token === undefined ? {} : { token });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('401');
      expect(res.body.error.message).toMatch(/API key|Unauthorized/);
    }
    expect(sim.counters().unauthenticated).toBeGreaterThanOrEqual(3);
  });

  it("scopes every key to its business: biz-1's key never sees biz-2's records", async () => {
    const [b1, b2] = [sim.businesses[0]!, sim.businesses[1]!];
    const ids1 = await cursorWalk(sim.baseUrl, b1.apiKey, 500);
    const ids2 = new Set(sim.truth('biz-2').calls.map((c) => c.id));
    expect(ids1).toEqual(sim.truth('biz-1').calls.map((c) => c.id));
    expect(ids1.some((id) => ids2.has(id))).toBe(false);
    const numbers = await call<{ data: { numbers: { id: string }[] } }>(`${sim.baseUrl}/api/v1/numbers`, { token: b2.apiKey });
    expect(numbers.body.data.numbers.map((n) => n.id)).toEqual(sim.truth('biz-2').numbers.map((n) => n.id));
    expect(sim.counters().businesses['biz-2']!.apiKeyRequests).toBeGreaterThan(0);
  });

  it('creates a key showing the secret once, lists prefixes only, and revokes at once', async () => {
    const admin = sim.businesses[0]!.apiKey;
    const created = await call<{ data: { id: string; key: string; prefix: string; name: string } }>(`${sim.baseUrl}/api/v1/api-keys`, {
      method: 'POST',
      token: admin,
      json: { name: 'warehouse sync' },
    });
    expect(created.status).toBe(201);
    const { id, key, prefix, name } = created.body.data;
    expect(name).toBe('warehouse sync');
    expect(key.startsWith(KEY_PREFIX)).toBe(true);
    expect(prefix).toBe(key.slice(0, KEY_PREFIX.length + 8));
    expect((await call(`${sim.baseUrl}/api/v1/calls?limit=1`, { token: key })).status).toBe(200);
    const list = await call<KeyList>(`${sim.baseUrl}/api/v1/api-keys`, { token: admin });
    expect(list.text).not.toContain(key);
    expect(list.text).not.toContain(admin);
    const listed = list.body.data.api_keys.find((k) => k.id === id);
    expect(listed).toMatchObject({ name: 'warehouse sync', prefix });
    expect(listed?.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const revoked = await call(`${sim.baseUrl}/api/v1/api-keys/${id}`, { method: 'DELETE', token: admin });
    expect(revoked.status).toBe(200);
    const after = await call<OrdinaryError>(`${sim.baseUrl}/api/v1/calls?limit=1`, { token: key });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('401');
    expect((await call(`${sim.baseUrl}/api/v1/api-keys/${id}`, { method: 'DELETE', token: admin })).status).toBe(404);
  });

  it('revokeKey() stops the initial key on the next request', async () => {
    const b = sim.businesses[2]!;
    expect((await call(`${sim.baseUrl}/api/v1/numbers`, { token: b.apiKey })).status).toBe(200);
    sim.revokeKey('biz-3');
    expect((await call(`${sim.baseUrl}/api/v1/numbers`, { token: b.apiKey })).status).toBe(401);
  });

  it('allows at most 10 active keys; revoking one frees a slot', async () => {
    const admin = sim.businesses[1]!.apiKey;
    const url = `${sim.baseUrl}/api/v1/api-keys`;
    for (let i = 0; i < 9; i++) {
      expect((await call(url, { method: 'POST', token: admin, json: { name: `k${i}` } })).status).toBe(201);
    }
    const refused = await call<OrdinaryError>(url, { method: 'POST', token: admin, json: { name: 'eleventh' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('10 active API keys');
    const list = await call<KeyList>(url, { token: admin });
    expect(list.body.data.total).toBe(10);
    const victim = list.body.data.api_keys.find((k) => k.name === 'k0')!;
    await call(`${url}/${victim.id}`, { method: 'DELETE', token: admin });
    expect((await call(url, { method: 'POST', token: admin, json: { name: 'again' } })).status).toBe(201);
  });

  it('rejects key creation without a name, naming the field', async () => {
    const res = await call<OrdinaryError>(`${sim.baseUrl}/api/v1/api-keys`, {
      method: 'POST',
      token: sim.businesses[0]!.apiKey,
      json: {},
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Invalid request: name is required');
  });
});

describe('simulator session login', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ businesses: 2, calls: 80, rateLimit: { limit: 2, windowMs: 60_000 } });
  });
  afterAll(async () => {
    await sim.close();
  });

  async function login(email: string, password: string): Promise<string> {
    const res = await call(`${sim.baseUrl}/api/v1/auth/login`, { method: 'POST', json: { email, password } });
    expect(res.status).toBe(200);
    const cookie = String(res.headers['set-cookie']).split(';')[0]!;
    expect(cookie).toMatch(/^ct_session=/);
    return cookie;
  }

  it('names the missing field and refuses a bad password in the session error shape', async () => {
    const url = `${sim.baseUrl}/api/v1/auth/login`;
    const noEmail = await call<{ error: string }>(url, { method: 'POST', json: { password: 'x' } });
    expect(noEmail.status).toBe(400);
    expect(noEmail.body).toEqual({ error: 'Invalid request: email is required' });
    const noPassword = await call<{ error: string }>(url, { method: 'POST', json: { email: 'a@b.c' } });
    expect(noPassword.body).toEqual({ error: 'Invalid request: password is required' });
    const bad = await call<{ error: string }>(url, { method: 'POST', json: { email: sim.businesses[0]!.email, password: 'wrong' } });
    expect(bad.status).toBe(401);
    expect(typeof bad.body.error).toBe('string');
  });

  it('serves top-level payloads with the cookie, without counting against the rate limit', async () => {
    const cookie = await login(sim.businesses[0]!.email, sim.businesses[0]!.password);
    for (let i = 0; i < 5; i++) {
      const res = await call<{ calls: unknown[]; total: number; has_more: boolean }>(`${sim.baseUrl}/api/v1/calls?limit=10&offset=${i * 10}`, { cookie });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(80);
      expect(res.body.calls).toEqual(
        sim
          .truth('biz-1')
          .calls.slice(i * 10, i * 10 + 10)
          .map((c) => c.raw),
      );
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
    const numbers = await call<{ numbers: unknown[]; total: number }>(`${sim.baseUrl}/api/v1/numbers`, { cookie });
    expect(numbers.body.total).toBe(5);
    const bad = await call<{ error: string }>(`${sim.baseUrl}/api/v1/calls?limit=900`, { cookie });
    expect(bad.status).toBe(400);
    expect(typeof bad.body.error).toBe('string');
    const c = sim.counters().businesses['biz-1']!;
    expect(c.sessionRequests).toBe(7);
    expect(c.windows).toEqual([]);
    expect((await call(`${sim.baseUrl}/api/v1/numbers`, { token: sim.businesses[0]!.apiKey })).headers['x-ratelimit-remaining']).toBe('1');
  });

  it("gives the viewer read access but 403 on key management; the owner's session may manage keys", async () => {
    const viewer = await login(sim.businesses[1]!.viewerEmail, sim.businesses[1]!.viewerPassword);
    expect((await call(`${sim.baseUrl}/api/v1/numbers`, { cookie: viewer })).status).toBe(200);
    const denied = await call<{ error: string }>(`${sim.baseUrl}/api/v1/api-keys`, { cookie: viewer });
    expect(denied.status).toBe(403);
    expect(typeof denied.body.error).toBe('string');
    const createDenied = await call(`${sim.baseUrl}/api/v1/api-keys`, { method: 'POST', cookie: viewer, json: { name: 'x' } });
    expect(createDenied.status).toBe(403);
    const owner = await login(sim.businesses[1]!.email, sim.businesses[1]!.password);
    const created = await call<{ key: string }>(`${sim.baseUrl}/api/v1/api-keys`, { method: 'POST', cookie: owner, json: { name: 'from ui' } });
    expect(created.status).toBe(201);
    expect(created.body.key.startsWith(KEY_PREFIX)).toBe(true);
    const page = await call<CallsPage>(`${sim.baseUrl}/api/v1/calls?limit=1`, { token: created.body.key });
    expect(page.body.data.calls[0]!.id).toBe(sim.truth('biz-2').calls[0]!.id);
  });
});
