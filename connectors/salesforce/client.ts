import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { backoffDelayMs, describeThrown, flattenHeaders, jsonValue, parseJson, send } from '../../src/http/index.js';
import type { ExchangeOutcome, ExchangeResponse, FlatHeaders } from '../../src/http/index.js';
import type { ApiAllocation } from './allocation.js';
import type { SalesforceRetry } from './config.js';
import { isSalesforceError, SalesforceError, salesforceProblem } from './errors.js';

/**
 * Every HTTP exchange with Salesforce goes through the one exchange of `src/http`
 * (`send()`: the loop, the deadline, the bounded read, redaction); this file brings Salesforce's
 * requests and its `decide` hooks.
 */

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Largest answer read: a query batch of 2,000 records or 200 upsert results is far below it. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** One deadline per attempt over headers and body. */
const TIMEOUT_MS = 120_000;
/** Attempts at the token endpoint when it cannot be reached. */
const TOKEN_ATTEMPTS = 3;

/** One complete answer: status, lower-case headers and the parsed body (undefined when empty or not JSON). */
interface Answer {
  readonly status: number;
  readonly body: unknown;
  /** The body is there but not JSON (a proxy's page): a 2xx of that kind is no answer. */
  readonly notJson: boolean;
  readonly headers: FlatHeaders;
}

/**
 * Posts a form to the token endpoint and answers with whatever status came back (the caller
 * judges a refusal); an endpoint that cannot be reached is tried {@link TOKEN_ATTEMPTS} times.
 */
export function postForm(
  dispatcher: Dispatcher,
  url: URL,
  form: URLSearchParams,
  clean: (text: string) => string,
  sleep?: (ms: number) => Promise<void>,
): Promise<Answer> {
  return send<Answer>({
    dispatcher,
    timeoutMs: TIMEOUT_MS,
    maxBodyBytes: 1024 * 1024,
    redact: clean,
    ...(sleep === undefined ? {} : { sleep: (ms: number) => sleep(ms) }),
    request: () => ({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    }),
    decide: (outcome, attempt) => {
      if ('response' in outcome) return { action: 'accept', value: answerOf(outcome.response) };
      if (attempt < TOKEN_ATTEMPTS) return { action: 'retry', waitMs: 200 * attempt };
      return {
        action: 'fail',
        error: new SalesforceError(
          'transient',
          `salesforce: the token endpoint at sink.loginUrl (${url.origin}) could not be reached: ${describeThrown(outcome.error).label}`,
          { fix: "check that sink.loginUrl is the org's login URL and that this machine reaches it, then run again (it resumes)" },
        ),
      };
    },
  });
}

/** Where the bearer token comes from; {@link SalesforceAuth} renews it. */
export interface TokenSource {
  /** A session that is valid now (renewed before it runs out). */
  session(): Promise<{ readonly accessToken: string; readonly instanceUrl: string }>;
  /** Salesforce said this token's session is gone (`401 INVALID_SESSION_ID`); the next `session()` asks for a new one. */
  invalidate(accessToken: string): void;
}

interface SalesforceHttpOptions {
  readonly dispatcher: Dispatcher;
  readonly tokens: TokenSource;
  readonly allocation: ApiAllocation;
  readonly retry: SalesforceRetry;
  readonly apiVersion: string;
  readonly logger: Logger;
  readonly clock: { now(): number; sleep(ms: number): Promise<void> };
  readonly random?: () => number;
  /** Scrubs secrets (the token, the client secret) from text before it is logged or thrown. */
  readonly clean: (text: string) => string;
}

/** A 2xx or 300 answer of the REST API. */
interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Statuses worth another attempt: Salesforce's 5xx and 429 (`Retry-After` is not documented, so backoff decides). */
const TRANSIENT = new Set([429, 500, 502, 503, 504]);

/**
 * The REST API under `/services/data/vNN.0`, on the shared exchange: before each attempt waits
 * for room in the allocation (`acquire`); sends with the current session; learns from
 * `Sforce-Limit-Info`; renews the session once on `401 INVALID_SESSION_ID`; waits out
 * `REQUEST_LIMIT_EXCEEDED` (the allocation waits up to `limits.maxWaitSeconds`); retries 5xx and network failures with
 * jittered backoff. Anything else is a {@link SalesforceError}.
 */
export class SalesforceHttp {
  readonly #options: SalesforceHttpOptions;
  #answeredAt: number | undefined;

  constructor(options: SalesforceHttpOptions) {
    this.#options = options;
  }

  /** When the REST API last answered a request with success (epoch ms); undefined before the first. */
  get answeredAt(): number | undefined {
    return this.#answeredAt;
  }

  /** `path` relative to `/services/data/vNN.0` (`/query?q=…`), or absolute from the instance (`/services/data/…`, as `nextRecordsUrl` is). */
  send(method: Method, path: string, body?: unknown): Promise<ApiAnswer> {
    const { tokens, retry, logger, clock, clean, allocation } = this.#options;
    const resource = path.startsWith('/services/') ? path : `/services/data/v${this.#options.apiVersion}${path}`;
    const label = { method, path: resource.split('?')[0] ?? resource };
    const text = body === undefined ? undefined : JSON.stringify(body);
    let renewed = false;
    let failures = 0;
    let accessToken = '';
    return send<ApiAnswer>({
      dispatcher: this.#options.dispatcher,
      timeoutMs: TIMEOUT_MS,
      maxBodyBytes: MAX_BODY_BYTES,
      redact: clean,
      sleep: (ms) => clock.sleep(ms),
      acquire: () => allocation.acquire(),
      request: async () => {
        // A refused or unreachable token endpoint comes to `decide` as an unsent attempt.
        const session = await tokens.session();
        accessToken = session.accessToken;
        return {
          url: new URL(resource, session.instanceUrl),
          method,
          headers: {
            authorization: `Bearer ${session.accessToken}`,
            accept: 'application/json',
            ...(text === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(text === undefined ? {} : { body: text }),
        };
      },
      decide: (outcome) => {
        const answer = 'response' in outcome ? answerOf(outcome.response) : undefined;
        const limitExceeded = answer !== undefined && isLimitExceeded(answer);
        allocation.settle('response' in outcome ? outcome.response : undefined);
        // The session could not be had: the token request already retried what it could, and its error names the key to fix.
        if ('error' in outcome && isSalesforceError(outcome.error)) return { action: 'fail', error: outcome.error };
        if (answer !== undefined && isSuccess(answer) && !answer.notJson) {
          logger.debug({ ...label, status: answer.status }, 'salesforce request');
          this.#answeredAt = clock.now();
          return { action: 'accept', value: { status: answer.status, body: answer.body } };
        }
        if (answer?.status === 401 && !renewed) {
          // The session timed out or was revoked: one new token, then the same request again.
          tokens.invalidate(accessToken);
          renewed = true;
          return { action: 'retry', waitMs: undefined };
        }
        if (limitExceeded) {
          // Another integration's burst: `acquire` now waits until the window allows.
          allocation.exhausted();
          return { action: 'retry', waitMs: undefined };
        }
        const transient = answer === undefined || isTransient(answer);
        failures += 1;
        if (!transient || failures >= retry.maxAttempts) return { action: 'fail', error: this.#failure(label, outcome, answer, failures) };
        const waitMs = backoffDelayMs(failures, retry, this.#options.random);
        logger.warn(
          { ...label, status: answer?.status, attempt: failures, waitMs, reason: clean(describe(outcome, answer)) },
          'salesforce request failed; retrying',
        );
        return { action: 'retry', waitMs };
      },
    });
  }

  #failure(label: { method: string; path: string }, outcome: ExchangeOutcome, answer: Answer | undefined, attempts: number): SalesforceError {
    if (answer === undefined) {
      return new SalesforceError('transient', `salesforce ${label.method} ${label.path}: ${describe(outcome, answer)} (after ${attempts} attempts)`);
    }
    const { errorCode } = salesforceProblem(answer.body);
    const problem = isTransient(answer) ? 'transient' : answer.status === 401 ? 'auth' : 'refused';
    const text = `salesforce ${label.method} ${label.path} answered ${describe(outcome, answer)}`;
    return new SalesforceError(problem, text, { status: answer.status, ...(errorCode === undefined ? {} : { errorCode }) });
  }
}

function answerOf(response: ExchangeResponse): Answer {
  const read = parseJson(response.body.toString('utf8'));
  return { status: response.status, body: jsonValue(read), notJson: !read.ok && read.problem === 'not_json', headers: flattenHeaders(response.headers) };
}

function isSuccess(answer: Answer): boolean {
  return (answer.status >= 200 && answer.status < 300) || answer.status === 300;
}

// A success whose body is not JSON (a proxy's page) is retried like a 5xx.
function isTransient(answer: Answer): boolean {
  return TRANSIENT.has(answer.status) || (answer.notJson && isSuccess(answer));
}

function isLimitExceeded(answer: Answer): boolean {
  return answer.status === 403 && salesforceProblem(answer.body).errorCode === 'REQUEST_LIMIT_EXCEEDED';
}

function describe(outcome: ExchangeOutcome, answer: Answer | undefined): string {
  if (answer !== undefined) {
    if (answer.notJson && isSuccess(answer)) return `${answer.status} with a body that is not JSON`;
    const { errorCode, message } = salesforceProblem(answer.body);
    return `${answer.status}${errorCode === undefined ? '' : ` ${errorCode}`}${message === undefined ? '' : `: ${message}`}`;
  }
  if ('error' in outcome) return outcome.timedOut ? 'no complete answer within the deadline' : `network: ${describeThrown(outcome.error).label}`;
  return 'no answer';
}
