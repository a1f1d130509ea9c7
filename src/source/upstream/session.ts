import type { Dispatcher } from 'undici';
import { send } from '../../http/index.js';
import type { ExchangeResponse } from '../../http/index.js';
import { forTerminal } from '../../base/redact/index.js';
import type { RequestAuth } from './auth.js';
import { classifyFailure, unanswered, upstreamFailure } from './classify.js';
import type { ExchangeSettings } from './classify.js';
import { parseErrorBody } from './envelopes.js';
import { UpstreamErrorCode } from './errors.js';
import type { RequestContext } from './errors.js';
import { rateLimitOf, readErrorBody } from './read-response.js';

export interface SessionAuthOptions {
  /** `{baseUrl}/api/v1/auth/login` is the login endpoint. */
  readonly baseUrl: string;
  readonly email: string;
  readonly password: string;
  readonly dispatcher: Dispatcher;
  readonly settings: ExchangeSettings;
}

/** `name=value` of every `Set-Cookie`, joined as a `Cookie` header; attributes are dropped. */
export function cookieHeader(setCookie: string | string[] | undefined): string | undefined {
  const lines = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
  const pairs = lines.map((line) => line.split(';')[0]?.trim() ?? '').filter((pair) => pair.includes('='));
  return pairs.length === 0 ? undefined : pairs.join('; ');
}

/**
 * Session cookie: logs in with `POST /api/v1/auth/login` on first use and sends the cookie after.
 * Concurrent callers share one login; after a 401 the cookie is renewed once for everyone who used
 * it. Session requests do not count against the API-key rate limit (specification §5, §8).
 */
export class SessionAuth implements RequestAuth {
  readonly countsAgainstRateLimit = false;
  #options: SessionAuthOptions;
  #cookie: string | undefined;
  #login: Promise<string> | undefined;

  constructor(options: SessionAuthOptions) {
    this.#options = options;
  }

  /** The current cookie, for redaction. */
  get cookie(): string | undefined {
    return this.#cookie;
  }

  async headers(signal?: AbortSignal): Promise<Record<string, string>> {
    return { cookie: this.#cookie ?? (await this.#loginOnce(signal)) };
  }

  async refresh(used: Record<string, string>, signal?: AbortSignal): Promise<boolean> {
    if (this.#cookie !== undefined && this.#cookie !== used.cookie) return true;
    this.#cookie = undefined;
    await this.#loginOnce(signal);
    return true;
  }

  #loginOnce(signal?: AbortSignal): Promise<string> {
    this.#login ??= this.#logIn(signal).finally(() => {
      this.#login = undefined;
    });
    return this.#login;
  }

  async #logIn(signal?: AbortSignal): Promise<string> {
    const { baseUrl, email, password, dispatcher, settings } = this.#options;
    const { redact, now, policy } = settings;
    const url = new URL(`${baseUrl.replace(/\/+$/, '')}/api/v1/auth/login`);
    const context: RequestContext = { method: 'POST', host: url.host, path: url.pathname };
    // One attempt: a login that fails is the request's failure, retried (if at all) with the request.
    const response = await send<ExchangeResponse>({
      dispatcher,
      timeoutMs: settings.timeoutMs,
      maxBodyBytes: settings.maxBodyBytes,
      redact,
      signal,
      request: () => ({
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ email, password }),
      }),
      decide: (outcome) =>
        'response' in outcome ? { action: 'accept', value: outcome.response } : { action: 'fail', error: unanswered(outcome, context, settings).error },
    });
    const cookie = cookieHeader(response.headers['set-cookie']);
    if (response.status >= 200 && response.status < 300 && cookie !== undefined) {
      this.#cookie = cookie;
      return cookie;
    }
    const body = readErrorBody(response.body);
    const classified =
      response.status < 300
        ? { kind: 'auth' as const, retry: false, reason: `HTTP ${response.status}: login set no session cookie`, code: UpstreamErrorCode.LoginFailed }
        : classifyFailure({ status: response.status, headers: response.headers, body }, now(), policy);
    const final =
      classified.kind === 'auth' || classified.kind === 'forbidden' || classified.kind === 'invalid'
        ? { ...classified, kind: 'auth' as const, retry: false, code: UpstreamErrorCode.LoginFailed, reason: `login rejected (${classified.reason})` }
        : classified;
    const serverMessage = parseErrorBody(body, (text) => redact(forTerminal(text))).message;
    const { rateLimit } = rateLimitOf(response.headers, now(), policy.maxWaitMs);
    throw upstreamFailure(
      final,
      context,
      { status: response.status, ...(serverMessage === undefined ? {} : { serverMessage }), ...(rateLimit === undefined ? {} : { rateLimit }) },
      redact,
    ).error;
  }
}
