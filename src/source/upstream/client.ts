import type { Dispatcher } from 'undici';
import { send } from '../../http/index.js';
import type { CappedWaitNote, ExchangeDecision, ExchangeOutcome, ExchangeRequest, Sleep } from '../../http/index.js';
import { createRedactor, forTerminal } from '../../base/redact/index.js';
import type { Redact } from '../../base/redact/index.js';
import type { RateLimitInfo } from '../ratelimit/index.js';
import { SessionAuth } from './auth/session.js';
import type { RequestAuth } from './auth/types.js';
import { classifyFailure, upstreamClassifyPolicy } from './classify.js';
import type { Classification } from './classify.js';
import { parseErrorBody } from './envelopes.js';
import { isUpstreamError, UpstreamError, UpstreamErrorCode } from './errors.js';
import type { RequestContext } from './errors.js';
import { createUpstreamAgent } from './http.js';
import type { JsonObject } from '../../base/json.js';
import { parseJson, readOutcome, unwrapSuccess } from './read-response.js';
import type { ExchangeSettings, RawResponse, UpstreamFailure } from './read-response.js';
import { classificationOf, upstreamFailure } from './request-error.js';
import type { FailureDetails } from './request-error.js';

export type UpstreamApi = 'v1' | 'v2';

/** `upstream.maxBodyBytes` default: far above any real page, far below what would exhaust memory. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
export type QueryParams = Record<string, string | number | undefined>;

export interface UpstreamCredentials {
  /** v1 API key (`Authorization: Bearer`). Preferred over `session` when both are set. */
  readonly apiKey?: string;
  /** v1 session login; its requests do not count against the rate limit. */
  readonly session?: { readonly email: string; readonly password: string };
  /** v2 bearer token. */
  readonly v2Token?: string;
}

/** Named like the `upstream` config section, so a caller can pass that section as it is. */
export interface UpstreamClientOptions {
  /** v1 lives at `${baseUrl}/api/v1`. */
  readonly baseUrl: string;
  /** v2 host; v2 paths (`/api/all/voicemails`) are appended as given. */
  readonly v2BaseUrl?: string;
  /** One deadline per request, headers and body together, ms. */
  readonly timeoutMs: number;
  /** Largest body read; a longer one is a transient failure. @defaultValue 64 MiB */
  readonly maxBodyBytes?: number;
  readonly credentials: UpstreamCredentials;
  /** Shared by every business's client; tests pass a `MockAgent`. @defaultValue a keep-alive `Agent` this client owns */
  readonly dispatcher?: Dispatcher;
  /** Extra trusted CAs for the default agent. */
  readonly caFile?: string;
  /** Longest wait a server's answer may impose (`Retry-After`, `X-RateLimit-Reset`). @defaultValue 15 min */
  readonly maxWaitMs?: number;
  /** @defaultValue `Date.now` */
  readonly now?: () => number;
}

export interface UpstreamResponse {
  readonly status: number;
  /** The payload, out of its `data` envelope when it had one. */
  readonly payload: JsonObject;
  readonly rateLimit?: RateLimitInfo;
  /** Set when the rate-limit reset was further ahead than `maxWaitMs` and was cut to it. */
  readonly waitCapped?: CappedWaitNote;
}

/** One attempt as upstream reads it: the response, or the error with the one classification it was built from. */
export type UpstreamAttempt = { readonly response: UpstreamResponse } | UpstreamFailure;

export interface UpstreamGetOptions {
  readonly signal?: AbortSignal | undefined;
  /** The budget, awaited before every attempt (see `send()`'s `acquire`). @defaultValue none */
  readonly acquire?: () => Promise<void>;
  /**
   * The retry policy: what each attempt's result leads to (`fetchWithRetry` passes its own).
   * @defaultValue a response is returned, a failure thrown at once
   */
  readonly settle?: (attempt: UpstreamAttempt) => Promise<ExchangeDecision<UpstreamResponse>>;
  /** Sleeps the waits `settle` asks for. @defaultValue an abortable timer */
  readonly sleep?: Sleep;
}

export interface UpstreamClient {
  /**
   * One exchange (`send()`); throws `UpstreamError`. Without `settle`, one attempt. `api: 'v1'` →
   * `${baseUrl}/api/v1${path}`; `'v2'` → `${v2BaseUrl}${path}` with the v2 token. A session 401
   * logs in again and sends once more, before `settle` sees anything.
   */
  get(api: UpstreamApi, path: string, query?: QueryParams, options?: UpstreamGetOptions): Promise<UpstreamResponse>;
  /** Whether a request of each interface draws from the business's budget (session: no). */
  readonly countsAgainstRateLimit: { readonly v1: boolean; readonly v2: boolean };
  /** Closes the default agent if this client created it; an injected dispatcher stays open. */
  close(): Promise<void>;
}

interface Target {
  readonly base: string;
  readonly auth: RequestAuth | undefined;
}

function buildUrl(base: string, path: string, query: QueryParams | undefined): URL {
  const url = new URL(`${base.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}

function toAttempt(raw: RawResponse, context: RequestContext, settings: ExchangeSettings): UpstreamAttempt {
  const { redact, now, policy } = settings;
  const rateLimit = { ...(raw.rateLimit ? { rateLimit: raw.rateLimit } : {}), ...(raw.waitCapped ? { waitCapped: raw.waitCapped } : {}) };
  const body = parseJson(raw.text);
  if (raw.status >= 200 && raw.status < 300) {
    const unwrapped = unwrapSuccess(body);
    if (unwrapped) {
      if (raw.replacedBytes) REPLACED.add(unwrapped);
      return { response: { status: raw.status, payload: unwrapped, ...rateLimit } };
    }
    return failure(classifyFailure({ status: raw.status, bodyProblem: 'bad_json' }, now(), policy), context, { status: raw.status, ...rateLimit }, redact);
  }
  const parsed = body ?? raw.text;
  const serverMessage = parseErrorBody(parsed, (text) => redact(forTerminal(text))).message;
  return failure(
    classifyFailure({ status: raw.status, headers: raw.headers, body: parsed }, now(), policy),
    context,
    { status: raw.status, ...(serverMessage === undefined ? {} : { serverMessage }), ...rateLimit },
    redact,
  );
}

// Payloads decoded from bytes that were not valid UTF-8, beside the payload so its JSON shape stays as sent.
const REPLACED = new WeakSet<JsonObject>();

/**
 * Whether this payload (as `get` returned it) was decoded from a body that was not valid UTF-8:
 * its strings then hold U+FFFD where the bad bytes were, a rewrite of what upstream sent.
 */
export function hadInvalidUtf8(payload: JsonObject): boolean {
  return REPLACED.has(payload);
}

function failure(classification: Classification, context: RequestContext, details: FailureDetails, redact: Redact): UpstreamFailure {
  return { error: upstreamFailure(classification, context, details, redact), classification };
}

// The failure of a login, with the classification it was built from; anything else was not a request's failure.
function loginFailure(error: unknown): UpstreamFailure {
  const classification = isUpstreamError(error) ? classificationOf(error) : undefined;
  if (classification === undefined || !isUpstreamError(error)) throw error;
  return { error, classification };
}

/** v1 API key: `Authorization: Bearer <key>`; every request counts against the business's budget. */
export function apiKeyAuth(apiKey: string): RequestAuth {
  const headers = { authorization: `Bearer ${apiKey}` };
  return { countsAgainstRateLimit: true, headers: () => Promise.resolve({ ...headers }) };
}

/**
 * v2 bearer token: `Authorization: Bearer <token>`. v2 limits are not documented; its requests are
 * counted against the business's budget so that they can never push v1 into 429s.
 */
export function v2BearerAuth(token: string): RequestAuth {
  const headers = { authorization: `Bearer ${token}` };
  return { countsAgainstRateLimit: true, headers: () => Promise.resolve({ ...headers }) };
}

const settleOnce = (attempt: UpstreamAttempt): Promise<ExchangeDecision<UpstreamResponse>> =>
  Promise.resolve('response' in attempt ? { action: 'accept', value: attempt.response } : { action: 'fail', error: attempt.error });

/** The upstream client of one business: v1 by API key or session, v2 by bearer token. */
export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const now = options.now ?? Date.now;
  const policy = upstreamClassifyPolicy(options.maxWaitMs);
  const owned = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? createUpstreamAgent({ timeoutMs: options.timeoutMs, ...(options.caFile ? { caFile: options.caFile } : {}) });
  const { apiKey, session, v2Token } = options.credentials;
  let sessionAuth: SessionAuth | undefined;
  const redact = createRedactor(() => [apiKey, v2Token, session?.password, sessionAuth?.cookie]);
  const settings: ExchangeSettings = { redact, now, policy, timeoutMs: options.timeoutMs, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES };
  if (apiKey === undefined && session !== undefined) {
    sessionAuth = new SessionAuth({ baseUrl: options.baseUrl, ...session, dispatcher, settings });
  }
  const v1Auth = apiKey !== undefined ? apiKeyAuth(apiKey) : sessionAuth;
  const targets: Record<UpstreamApi, Target> = {
    v1: { base: `${options.baseUrl.replace(/\/+$/, '')}/api/v1`, auth: v1Auth },
    v2: { base: options.v2BaseUrl ?? options.baseUrl, auth: v2Token === undefined ? undefined : v2BearerAuth(v2Token) },
  };

  return {
    countsAgainstRateLimit: { v1: v1Auth?.countsAgainstRateLimit ?? true, v2: true },
    async get(api, path, query, getOptions = {}) {
      const { base, auth } = targets[api];
      const url = buildUrl(base, path, query);
      const context: RequestContext = { method: 'GET', host: url.host, path: url.pathname };
      if (auth === undefined) {
        const needed = api === 'v1' ? 'an API key or a session login' : 'a v2 token';
        throw new UpstreamError(`GET ${url.host}${url.pathname}: no credentials: ${api} needs ${needed}`, {
          code: UpstreamErrorCode.MissingCredentials,
          kind: 'auth',
          request: context,
        });
      }
      const { signal, settle = settleOnce } = getOptions;
      let used: Record<string, string> = {};
      let renewed = false;
      return send<UpstreamResponse>({
        dispatcher,
        timeoutMs: options.timeoutMs,
        maxBodyBytes: settings.maxBodyBytes,
        redact,
        signal,
        ...(getOptions.acquire === undefined ? {} : { acquire: getOptions.acquire }),
        ...(getOptions.sleep === undefined ? {} : { sleep: getOptions.sleep }),
        request: async (): Promise<ExchangeRequest> => {
          used = await auth.headers(signal);
          return { url, method: 'GET', headers: { accept: 'application/json', ...used } };
        },
        decide: async (outcome: ExchangeOutcome) => {
          const resent = renewed;
          renewed = false;
          // A login that failed (building the request, or renewing it below) is this request's failure, as classified then.
          if ('unsent' in outcome) return settle(loginFailure(outcome.error));
          const read = readOutcome(outcome, context, settings);
          if (!('raw' in read)) return settle(read);
          // A session the server forgot: log in again (once for everyone who used it) and resend once, uncounted by settle.
          if (read.raw.status === 401 && !resent && auth.refresh) {
            renewed = true;
            const renewal = await auth.refresh(used, signal).catch((error: unknown) => loginFailure(error));
            if (renewal === true) return { action: 'retry', waitMs: undefined };
            if (renewal !== false) return settle(renewal);
          }
          return settle(toAttempt(read.raw, context, settings));
        },
      });
    },
    async close() {
      if (owned) await dispatcher.close();
    },
  };
}
