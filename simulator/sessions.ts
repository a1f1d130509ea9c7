import { randomBytes } from 'node:crypto';

type SessionRole = 'owner' | 'viewer';

interface Session {
  business: string;
  role: SessionRole;
  email: string;
}

/** Cookie name of the session interface. */
export const SESSION_COOKIE = 'ct_session';

/** Live sessions, by opaque token. Sessions never expire while the simulator runs. */
export class SessionStore {
  readonly #sessions = new Map<string, Session>();

  open(session: Session): string {
    const token = randomBytes(18).toString('base64url');
    this.#sessions.set(token, session);
    return token;
  }

  /** The session named by the request's Cookie header, if any. */
  fromCookieHeader(header: string | undefined): Session | undefined {
    if (header === undefined) return undefined;
    for (const part of header.split(';')) {
      const [name, ...rest] = part.trim().split('=');
      if (name === SESSION_COOKIE) return this.#sessions.get(rest.join('='));
    }
    return undefined;
  }
}
