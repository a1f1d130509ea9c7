import type { Dispatcher } from 'undici';
import { abortableSleep, backoffDelayMs, send } from '../../http/index.js';
import type {
  CappedWaitNote,
  ExchangeDecision,
  ExchangeHead,
  ExchangeOutcome,
  ExchangeRequest,
  ExchangeResponse,
  RetryPolicy,
  Sleep,
} from '../../http/index.js';
import { createRedactor, forTerminal } from '../../base/redact/index.js';
import type { JsonObject } from '../../base/json.js';
import { bucketBudget, type BucketConfig, type RateLimiter, type RateLimitInfo } from '../ratelimit/index.js';
import { apiKeyAuth, v2BearerAuth, type RequestAuth } from './auth.js';
import { classificationOf, classifyFailure, unanswered, upstreamClassifyPolicy, upstreamFailure } from './classify.js';
import type { ExchangeSettings, UpstreamFailure } from './classify.js';
import { parseErrorBody } from './envelopes.js';
import { BudgetWaitError, isUpstreamError, UpstreamError, UpstreamErrorCode } from './errors.js';
import type { RequestContext, UpstreamErrorKind } from './errors.js';
import { createUpstreamAgent } from './http.js';
import { rateLimitOf, readErrorBody, readPayload } from './read-response.js';
import { SessionAuth } from './session.js';

export type UpstreamApi = 'v1' | 'v2';

/** `upstream.maxBodyBytes` default: far above any real page, far below what would exhaust memory. */
const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
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
  /** The body was not valid UTF-8: the payload's strings hold U+FFFD where the bad bytes were. */
  readonly replacedUtf8: boolean;
  readonly rateLimit?: RateLimitInfo;
  /** Set when the rate-limit reset was further ahead than `maxWaitMs` and was cut to it. */
  readonly waitCapped?: CappedWaitNote;
}

/** The one retry policy (`upstream.retry`), and how many 429s the upstream's are survived. */
export interface UpstreamRetry extends RetryPolicy {
  /** 429s survived before giving up; they do not use up `maxAttempts`. @defaultValue 30 */
  readonly maxRateLimited?: number;
}

/** A business's request budget: its bucket in the limiter, shared by all its keys and replicas. */
export interface RequestBudget {
  /** The bucket's key: the business's name. */
  readonly key: string;
  /** Longest wait for budget done in place; a longer one throws `BudgetWaitError`. `Infinity` in backfill. */
  readonly maxWaitMs: number;
  /**
   * Where the requests are counted, with `bucket`. Absent (client-side limiting off): nothing is
   * counted, but a 429 still waits its retry time, in place: turning the budget off must not turn
   * a server's "wait" into a retry storm.
   */
  readonly limiter?: RateLimiter;
  readonly bucket?: BucketConfig;
}

/** What every request of one business's run follows: its budget, the retry policy, the stop and the watcher. */
export interface RequestRules {
  /** Taken before every attempt (unless the auth is not counted). @defaultValue none: nothing counted or blocked */
  readonly budget?: RequestBudget;
  /** @defaultValue none: one attempt, a failure thrown at once */
  readonly retry?: UpstreamRetry;
  /** Ends a wait or a request in flight. */
  readonly signal?: AbortSignal | undefined;
  readonly onEvent?: (event: FetchEvent) => void;
  /** @defaultValue an abortable timer */
  readonly sleep?: Sleep;
  /** @defaultValue `Date.now` */
  readonly now?: () => number;
  /** Jitter source. @defaultValue `Math.random` */
  readonly random?: () => number;
}

/** What one page request went through, for progress, metrics and logs. */
export type FetchEvent =
  | { readonly type: 'response'; readonly api: UpstreamApi; readonly path: string; readonly status?: number; readonly code?: string; readonly ms: number }
  | { readonly type: 'retry'; readonly kind: UpstreamErrorKind; readonly reason: string; readonly waitMs: number; readonly attempt: number }
  | { readonly type: 'budget-wait'; readonly bucketKey: string; readonly waitMs: number }
  /** The server asked for a wait longer than `upstream.maxWaitMs`; callsync waits the cap instead. Log it as a warning. */
  | {
      readonly type: 'wait-capped';
      readonly api: UpstreamApi;
      readonly path: string;
      readonly source: string;
      readonly askedMs: number;
      readonly waitMs: number;
    };

/** The one warning line for a cut wait; the caller adds which business and stream. */
export function waitCappedMessage(event: Extract<FetchEvent, { type: 'wait-capped' }>): string {
  return `GET ${event.path} (${event.api}): the server asked to wait ${Math.round(event.askedMs / 1000)} s (${event.source}); waiting upstream.maxWaitMs (${Math.round(event.waitMs / 1000)} s) instead`;
}

export interface UpstreamClient {
  /**
   * One page request as one exchange (`send()`): `api: 'v1'` → `${baseUrl}/api/v1${path}`; `'v2'` →
   * `${v2BaseUrl}${path}` with the v2 token. Before every attempt it takes a token of the budget
   * (waiting for one up to its `maxWaitMs`); every answer's rate-limit headers go back to the
   * limiter; a 429 blocks the bucket and is retried; transient failures are retried with
   * full-jitter backoff (or the server's longer `Retry-After`); auth, forbidden and invalid
   * failures are thrown at once. A session 401 logs in again and sends once more, uncounted.
   * @throws UpstreamError when the failure is final; BudgetWaitError when the budget wait is too long.
   */
  get(api: UpstreamApi, path: string, query?: QueryParams, rules?: RequestRules): Promise<UpstreamResponse>;
  /** Whether a request of each interface draws from the business's budget (session: no). */
  readonly countsAgainstRateLimit: { readonly v1: boolean; readonly v2: boolean };
  /** Closes the default agent if this client created it; an injected dispatcher stays open. */
  close(): Promise<void>;
}

interface Target {
  readonly base: string;
  readonly auth: RequestAuth | undefined;
  /** Every request's headers when the auth's never change: built once. */
  readonly headers?: Readonly<Record<string, string>>;
}

function target(base: string, auth: RequestAuth | undefined): Target {
  return { base, auth, ...(auth?.fixed === undefined ? {} : { headers: { accept: 'application/json', ...auth.fixed } }) };
}

function buildUrl(base: string, path: string, query: QueryParams | undefined): URL {
  const url = new URL(`${base.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}

// The failure of a login, with the classification it was built from; anything else was not a request's failure.
function loginFailure(error: unknown): UpstreamFailure {
  const classification = isUpstreamError(error) ? classificationOf(error) : undefined;
  if (classification === undefined || !isUpstreamError(error)) throw error;
  return { error, classification };
}

/** A complete answer as upstream reads it: the page of a 2xx whose body is a JSON object, else the classified failure. */
function answerOf(answer: ExchangeResponse, context: RequestContext, settings: ExchangeSettings): { readonly response: UpstreamResponse } | UpstreamFailure {
  const { status, headers, body } = answer;
  const { redact, now, policy } = settings;
  const limits = rateLimitOf(headers, now(), policy.maxWaitMs);
  if (status >= 200 && status < 300) {
    const page = readPayload(body);
    if (page !== undefined) return { response: { status, ...page, ...limits } };
    return upstreamFailure(classifyFailure({ status, bodyProblem: 'bad_json' }, now(), policy), context, { status, ...limits }, redact);
  }
  const parsed = readErrorBody(body);
  const serverMessage = parseErrorBody(parsed, (text) => redact(forTerminal(text))).message;
  return upstreamFailure(
    classifyFailure({ status, headers, body: parsed }, now(), policy),
    context,
    { status, ...(serverMessage === undefined ? {} : { serverMessage }), ...limits },
    redact,
  );
}

const SEND_NOW: ExchangeDecision<never> = Object.freeze({ action: 'retry', waitMs: undefined });

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
    v1: target(`${options.baseUrl.replace(/\/+$/, '')}/api/v1`, v1Auth),
    v2: target(options.v2BaseUrl ?? options.baseUrl, v2Token === undefined ? undefined : v2BearerAuth(v2Token)),
  };

  return {
    countsAgainstRateLimit: { v1: v1Auth?.countsAgainstRateLimit ?? true, v2: true },
    async get(api, path, query, rules = {}) {
      const { base, auth, headers } = targets[api];
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
      const { budget, retry, signal } = rules;
      const sleep = rules.sleep ?? abortableSleep;
      const clock = rules.now ?? Date.now;
      const emit = rules.onEvent ?? (() => undefined);
      const waitInPlace = async (waitMs: number): Promise<void> => {
        if (waitMs > (budget?.maxWaitMs ?? Number.POSITIVE_INFINITY)) throw new BudgetWaitError(waitMs, budget?.key ?? url.host);
        emit({ type: 'budget-wait', bucketKey: budget?.key ?? url.host, waitMs });
        await sleep(waitMs, signal);
        signal?.throwIfAborted();
      };
      // The bucket this request is counted in, as the one budget `send()` spends: none when limiting
      // is off or the auth is not counted (a session). A 429's block is the client's own (below).
      const counted =
        budget?.limiter !== undefined && budget.bucket !== undefined && auth.countsAgainstRateLimit
          ? {
              limiter: budget.limiter,
              key: budget.key,
              spend: bucketBudget({ limiter: budget.limiter, key: budget.key, bucket: budget.bucket, wait: waitInPlace, maxWaitMs: policy.maxWaitMs, now }),
            }
          : undefined;
      let used: Record<string, string> = {};
      let renewed = false;
      let transientFailures = 0;
      let rateLimited = 0;
      let started = clock();

      // What an attempt leads to, by the one classification made of it: the retry rules and the budget's bookkeeping.
      const settle = async (failure: UpstreamFailure, head?: ExchangeHead): Promise<ExchangeDecision<UpstreamResponse>> => {
        const { error, classification } = failure;
        emit({ type: 'response', api, path, ...(error.status === undefined ? {} : { status: error.status }), code: error.code, ms: clock() - started });
        if (error.waitCapped) emit({ type: 'wait-capped', api, path, ...error.waitCapped });
        if (counted && error.rateLimit) await counted.spend.settle(head);
        signal?.throwIfAborted();
        if (retry === undefined || !classification.retry) return { action: 'fail', error };
        const reason = `${error.code}${error.status === undefined ? '' : ` (HTTP ${error.status})`}`;
        if (classification.kind === 'rate_limited') {
          rateLimited += 1;
          if (rateLimited > (retry.maxRateLimited ?? 30)) return { action: 'fail', error };
          const waitMs = classification.waitMs ?? 0;
          emit({ type: 'retry', kind: classification.kind, reason, waitMs, attempt: rateLimited });
          // The limiter now holds the wait: the next take reports it (in place or as BudgetWaitError).
          if (counted) await counted.limiter.block(counted.key, clock() + waitMs);
          else await waitInPlace(waitMs);
          return SEND_NOW;
        }
        transientFailures += 1;
        if (transientFailures >= retry.maxAttempts) return { action: 'fail', error };
        const waitMs = Math.max(backoffDelayMs(transientFailures, retry, rules.random), classification.waitMs ?? 0);
        emit({ type: 'retry', kind: classification.kind, reason, waitMs, attempt: transientFailures });
        return { action: 'retry', waitMs };
      };

      return send<UpstreamResponse>({
        dispatcher,
        timeoutMs: options.timeoutMs,
        maxBodyBytes: settings.maxBodyBytes,
        redact,
        signal,
        sleep,
        // Waits (in place, or as BudgetWaitError) until the bucket grants a token.
        acquire: async () => {
          if (counted) await counted.spend.acquire();
          started = clock();
        },
        request: (): ExchangeRequest | Promise<ExchangeRequest> =>
          headers !== undefined
            ? { url, method: 'GET', headers }
            : auth.headers(signal).then((fresh): ExchangeRequest => {
                used = fresh;
                return { url, method: 'GET', headers: { accept: 'application/json', ...fresh } };
              }),
        // The one decide: an answer read once (exact JSON, rate-limit headers), or the failure classified once and settled.
        decide: async (outcome: ExchangeOutcome) => {
          const resent = renewed;
          renewed = false;
          // A login that failed (building the request, or renewing it below) is this request's failure, as classified then.
          if ('unsent' in outcome) return settle(loginFailure(outcome.error));
          if (!('response' in outcome)) return settle(unanswered(outcome, context, settings), outcome.head);
          // A session the server forgot: log in again (once for everyone who used it) and resend once, uncounted by the retry rules.
          if (outcome.response.status === 401 && !resent && auth.refresh) {
            renewed = true;
            const renewal = await auth.refresh(used, signal).catch((error: unknown) => loginFailure(error));
            if (renewal === true) return SEND_NOW;
            if (renewal !== false) return settle(renewal);
          }
          const read = answerOf(outcome.response, context, settings);
          if (!('response' in read)) return settle(read, outcome.response);
          const { response } = read;
          emit({ type: 'response', api, path, status: response.status, ms: clock() - started });
          if (response.waitCapped) emit({ type: 'wait-capped', api, path, ...response.waitCapped });
          // Not awaited: a correction only ever lowers the budget or moves the window on, so it may land
          // after the next take; waiting for it would add a Redis round trip to every page.
          if (counted && response.rateLimit) counted.spend.settle(outcome.response).catch(() => undefined);
          return { action: 'accept', value: response };
        },
      });
    },
    async close() {
      if (owned) await dispatcher.close();
    },
  };
}
