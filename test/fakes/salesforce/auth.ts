import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import type { Reply } from '../json-service.js';

/**
 * The token endpoint (`POST /services/oauth2/token`, form-encoded) for the two server-to-server
 * flows Salesforce documents ("OAuth 2.0 JWT Bearer Flow for Server-to-Server Integration",
 * "OAuth 2.0 Client Credentials Flow for Server-to-Server Integration"):
 * - `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>`: the JWT's header is
 *   `{"alg":"RS256"}`, its claims `iss` (the connected app's consumer key), `sub` (the username),
 *   `aud` (the login URL) and `exp` (seconds since the epoch, at most a few minutes ahead); the
 *   signature is checked with the certificate uploaded to the connected app.
 * - `grant_type=client_credentials&client_id=…&client_secret=…`.
 * The answer is `{ access_token, instance_url, id, token_type: 'Bearer', scope, issued_at }`.
 * Salesforce's answer has no `expires_in` (the session lasts the org's session timeout); the docs
 * leave a client to learn it elsewhere, so the fake plays both: without it (default) or with it.
 * Errors are `400 { error, error_description }` (`invalid_grant`, `invalid_client_id`, `invalid_client`).
 */

export interface FakeAuthOptions {
  readonly consumerKey: string;
  readonly username: string;
  /** PEM certificate or public key of the connected app; JWTs signed with another key are refused. */
  readonly certificate?: string;
  /** Client credentials flow; absent: the flow is not enabled for the app. */
  readonly clientSecret?: string;
  /** Session lifetime; a request with an older token gets `401 INVALID_SESSION_ID`. */
  readonly sessionMs: number;
  /** Whether the token answer carries `expires_in` (seconds). */
  readonly expiresIn: boolean;
}

export class FakeAuth {
  readonly #tokens = new Map<string, number>();
  readonly #key: KeyObject | undefined;
  /** Token requests answered with a token, by grant type. */
  readonly issued: Record<string, number> = {};

  constructor(
    readonly options: FakeAuthOptions,
    readonly loginUrls: () => readonly string[],
    readonly instanceUrl: () => string,
  ) {
    this.#key = options.certificate === undefined ? undefined : createPublicKey(options.certificate);
  }

  token(form: URLSearchParams, now: number): Reply {
    const grant = form.get('grant_type');
    if (grant === 'urn:ietf:params:oauth:grant-type:jwt-bearer') return this.#jwt(form.get('assertion') ?? '', now);
    if (grant === 'client_credentials') {
      if (this.options.clientSecret === undefined) return oauthError('invalid_grant', 'no client credentials user enabled');
      if (form.get('client_id') !== this.options.consumerKey || form.get('client_secret') !== this.options.clientSecret) {
        return oauthError('invalid_client', 'invalid client credentials');
      }
      return this.#issue('client_credentials', now);
    }
    return oauthError('unsupported_grant_type', 'grant type not supported');
  }

  /** Whether the bearer token is one the fake issued and its session has not timed out. */
  valid(authorization: string | undefined, now: number): boolean {
    const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    const expiresAt = token === undefined ? undefined : this.#tokens.get(token);
    return expiresAt !== undefined && now < expiresAt;
  }

  /** Every session times out now (an admin revoked them, or the timeout passed). */
  expireAll(): void {
    for (const token of this.#tokens.keys()) this.#tokens.set(token, 0);
  }

  #jwt(assertion: string, now: number): Reply {
    const [header, claims, signature] = assertion.split('.');
    if (header === undefined || claims === undefined || signature === undefined || this.#key === undefined)
      return oauthError('invalid_grant', 'invalid assertion');
    const decoded = decodePart(header);
    if (decoded?.alg !== 'RS256') return oauthError('invalid_grant', 'invalid assertion');
    const good = verify('RSA-SHA256', Buffer.from(`${header}.${claims}`), this.#key, Buffer.from(signature, 'base64url'));
    if (!good) return oauthError('invalid_grant', 'invalid assertion');
    const body = decodePart(claims);
    if (body?.iss !== this.options.consumerKey) return oauthError('invalid_client_id', 'client identifier invalid');
    if (typeof body.aud !== 'string' || !this.loginUrls().includes(body.aud.replace(/\/$/, ''))) return oauthError('invalid_grant', 'audience is invalid');
    if (body.sub !== this.options.username) return oauthError('invalid_grant', "user hasn't approved this consumer");
    if (typeof body.exp !== 'number' || body.exp * 1000 < now) return oauthError('invalid_grant', 'expired authorization code');
    return this.#issue('jwt', now);
  }

  #issue(grant: string, now: number): Reply {
    const token = `00DFAKE000000000!${randomBytes(24).toString('base64url')}`;
    this.#tokens.set(token, now + this.options.sessionMs);
    this.issued[grant] = (this.issued[grant] ?? 0) + 1;
    const instanceUrl = this.instanceUrl();
    const body: Record<string, unknown> = {
      access_token: token,
      scope: 'api',
      instance_url: instanceUrl,
      id: `${instanceUrl}/id/00DFAKE000000000AAA/005FAKE000000000AAA`,
      token_type: 'Bearer',
      issued_at: String(now),
    };
    if (this.options.expiresIn) body.expires_in = Math.floor(this.options.sessionMs / 1000);
    return { status: 200, body };
  }
}

function oauthError(error: string, description: string): Reply {
  return { status: 400, body: { error, error_description: description } };
}

function decodePart(part: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
