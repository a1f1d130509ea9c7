import type { IncomingMessage } from 'node:http';
import { readJsonObject, requiredString } from './body.js';
import { sessionError } from './envelope.js';
import type { Reply } from './responder.js';
import { SESSION_COOKIE } from './sessions.js';
import type { SimState } from './state.js';

/**
 * POST /api/v1/auth/login `{email, password}`: session-style answers. Success sets the session
 * cookie and returns `{ user: { email, role, business } }` at top level.
 */
export async function login(state: SimState, req: IncomingMessage): Promise<Reply> {
  const body = await readJsonObject(req);
  if (body === undefined) return { status: 400, body: sessionError('Invalid request: body must be a JSON object') };
  const email = requiredString(body, 'email');
  if (typeof email !== 'string') return { status: 400, body: sessionError(email.error) };
  const password = requiredString(body, 'password');
  if (typeof password !== 'string') return { status: 400, body: sessionError(password.error) };
  for (const business of state.businesses) {
    const c = business.credentials;
    const role = email === c.email && password === c.password ? 'owner' : email === c.viewerEmail && password === c.viewerPassword ? 'viewer' : undefined;
    if (role === undefined) continue;
    const token = state.sessions.open({ business: business.name, role, email });
    return {
      status: 200,
      body: JSON.stringify({ user: { email, role, business: business.name } }),
      headers: { 'set-cookie': `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax` },
    };
  }
  return { status: 401, body: sessionError('Invalid email or password') };
}
