import type { Logger } from 'pino';
import { request, type Dispatcher } from 'undici';
import { backoffDelayMs } from '../../src/http-policy/index.js';
import type { ApiAllocation } from './allocation.js';
import type { SalesforceLimits, SalesforceRetry } from './config.js';
import { SalesforceError, salesforceProblem } from './errors.js';

/** Every HTTP exchange with Salesforce lives in this file, so one shared exchange can replace it in one place. */

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** One answer as read off the wire; `error` when no answer came. */
export type Exchange =
  | { readonly status: number; readonly body: unknown; readonly headers: Readonly<Record<string, string | undefined>> }
  | { readonly error: unknown };

/** Sends one request through the injected dispatcher; never throws (a network failure is `{ error }`). */
export async function exchange(dispatcher: Dispatcher, url: URL, init: { method: Method; headers: Record<string, string>; body?: string; timeoutMs?: number }): Promise<Exchange> {
  const timeout = init.timeoutMs ?? 60_000;
  try {
    const response = await request(url, {
      method: init.method,
      dispatcher,
      headers: init.headers,
      ...(init.body === undefined ? {} : { body: init.body }),
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    const text = await response.body.text();
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(response.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value[0] : value;
    return { status: response.statusCode, body: parseJson(text), headers };
  } catch (error) {
    return { error };
  }
}

/** Where the bearer token comes from; {@link SalesforceAuth} renews it. */
export interface TokenSource {
  /** A session that is valid now (renewed before it runs out). */
  session(): Promise<{ readonly accessToken: string; readonly instanceUrl: string }>;
  /** Salesforce said this token's session is gone (`401 INVALID_SESSION_ID`); the next `session()` asks for a new one. */
  invalidate(accessToken: string): void;
}

export interface SalesforceHttpOptions {
  readonly dispatcher: Dispatcher;
  readonly tokens: TokenSource;
  readonly allocation: ApiAllocation;
  readonly limits: SalesforceLimits;
  readonly retry: SalesforceRetry;
  readonly apiVersion: string;
  readonly logger: Logger;
  readonly clock: { now(): number; sleep(ms: number): Promise<void> };
  readonly random?: () => number;
  /** Scrubs secrets (the token, the client secret) from text before it is logged or thrown. */
  readonly clean: (text: string) => string;
}

/** A 2xx or 300 answer of the REST API. */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Statuses worth another attempt: Salesforce's 5xx and 429 (`Retry-After` is not documented, so backoff decides). */
const TRANSIENT = new Set([429, 500, 502, 503, 504]);

/**
 * The REST API under `/services/data/vNN.0`: waits for room in the allocation, sends with the
 * current session, learns from `Sforce-Limit-Info`, renews the session once on `401
 * INVALID_SESSION_ID`, waits out `REQUEST_LIMIT_EXCEEDED` (up to `limits.maxWaitSeconds`), and
 * retries 5xx and network failures with jittered backoff. Anything else is a {@link SalesforceError}.
 */
export class SalesforceHttp {
  readonly #options: SalesforceHttpOptions;
  #waitingSince: number | undefined;

  constructor(options: SalesforceHttpOptions) {
    this.#options = options;
  }

  /** `path` relative to `/services/data/vNN.0` (`/query?q=…`), or absolute from the instance (`/services/data/…`, as `nextRecordsUrl` is). */
  async send(method: Method, path: string, body?: unknown): Promise<ApiAnswer> {
    const { tokens, retry, logger, clock, clean } = this.#options;
    const resource = path.startsWith('/services/') ? path : `/services/data/v${this.#options.apiVersion}${path}`;
    const label = { method, path: resource.split('?')[0] ?? resource };
    let renewed = false;
    for (let attempt = 1; ; attempt += 1) {
      await this.#room();
      const { accessToken, instanceUrl } = await tokens.session().catch((error: unknown) => {
        this.#options.allocation.settle(false, undefined);
        throw error;
      });
      const answer = await exchange(this.#options.dispatcher, new URL(resource, instanceUrl), {
        method,
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const counted = 'status' in answer && answer.status !== 401 && !isLimitExceeded(answer);
      this.#options.allocation.settle(counted, 'status' in answer ? answer.headers['sforce-limit-info'] : undefined);
      if ('status' in answer && ((answer.status >= 200 && answer.status < 300) || answer.status === 300)) {
        logger.debug({ ...label, status: answer.status, attempt }, 'salesforce request');
        return { status: answer.status, body: answer.body };
      }
      if ('status' in answer && answer.status === 401 && !renewed) {
        // The session timed out or was revoked: one new token, then the same request again.
        tokens.invalidate(accessToken);
        renewed = true;
        attempt -= 1;
        continue;
      }
      if (isLimitExceeded(answer)) {
        this.#options.allocation.exhausted();
        attempt -= 1;
        continue;
      }
      const transient = 'error' in answer || TRANSIENT.has(answer.status);
      if (!transient || attempt >= retry.maxAttempts) throw this.#failure(label, answer, attempt);
      const waitMs = backoffDelayMs(attempt, retry, this.#options.random);
      logger.warn({ ...label, status: 'status' in answer ? answer.status : undefined, attempt, waitMs, reason: clean(describe(answer)) }, 'salesforce request failed; retrying');
      await clock.sleep(waitMs);
    }
  }

  /** Waits until the allocation has room for one more request, or throws when that is further off than `limits.maxWaitSeconds`. */
  async #room(): Promise<void> {
    const { allocation, limits, logger, clock } = this.#options;
    for (;;) {
      const wait = allocation.reserve();
      if (wait === undefined) {
        if (this.#waitingSince !== undefined) logger.info({ waitedMs: clock.now() - this.#waitingSince }, 'salesforce: room in the API allocation again; writing goes on');
        this.#waitingSince = undefined;
        return;
      }
      const now = clock.now();
      const resumeAt = new Date(wait.untilMs).toISOString();
      if (wait.untilMs - now > limits.maxWaitSeconds * 1000) {
        throw new SalesforceError('allocation', `salesforce: ${wait.reason}; writing stops until ${resumeAt} (wait longer than sink.limits.maxWaitSeconds)`, { resumeAt: wait.untilMs });
      }
      if (this.#waitingSince === undefined) {
        this.#waitingSince = now;
        logger.warn({ resumeAt }, `salesforce: ${wait.reason}; writing pauses until ${resumeAt}`);
      }
      await clock.sleep(Math.max(10, wait.untilMs - now));
    }
  }

  #failure(label: { method: string; path: string }, answer: Exchange, attempts: number): SalesforceError {
    const clean = this.#options.clean;
    if ('error' in answer) {
      return new SalesforceError('transient', clean(`salesforce ${label.method} ${label.path}: ${describe(answer)} (after ${attempts} attempts)`));
    }
    const { errorCode, message } = salesforceProblem(answer.body);
    const kind = TRANSIENT.has(answer.status) ? 'transient' : answer.status === 401 ? 'auth' : 'refused';
    const text = `salesforce ${label.method} ${label.path} answered ${answer.status}${errorCode === undefined ? '' : ` ${errorCode}`}${message === undefined ? '' : `: ${message}`}`;
    return new SalesforceError(kind, clean(text), { status: answer.status, ...(errorCode === undefined ? {} : { errorCode }) });
  }
}

function isLimitExceeded(answer: Exchange): boolean {
  return 'status' in answer && answer.status === 403 && salesforceProblem(answer.body).errorCode === 'REQUEST_LIMIT_EXCEEDED';
}

function describe(answer: Exchange): string {
  if ('status' in answer) {
    const { errorCode, message } = salesforceProblem(answer.body);
    return `${answer.status}${errorCode === undefined ? '' : ` ${errorCode}`}${message === undefined ? '' : `: ${message}`}`;
  }
  const error = answer.error;
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  return `network: ${code ?? (error instanceof Error ? error.message : String(error))}`;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
