import type { Logger } from 'pino';
import { flattenHeaders, jsonValue, parseJson, send } from '../../src/http/index.js';
import type { ExchangeDecision, ExchangeOutcome } from '../../src/http/index.js';
import { createRedactor, forTerminal } from '../../src/base/redact/index.js';
import type { Dispatcher } from 'undici';
import type { Clock, HubSpotBudget, RequestKind } from './budget.js';
import { classifyHubSpotFailure, stopAnswer, type Classification, type HubSpotFailure } from './classify.js';
import type { HubSpotRetryPolicy } from './config.js';
import { HubSpotError } from './errors.js';

export interface HubSpotHttpOptions {
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer …`; kept in a private field and scrubbed from every message. */
  readonly token: string;
  readonly dispatcher: Dispatcher;
  readonly budget: HubSpotBudget;
  readonly retry: HubSpotRetryPolicy;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Jitter source in [0, 1). @defaultValue `Math.random` */
  readonly random?: () => number;
  /** One deadline per attempt over headers and body together (not an idle timeout), ms. @defaultValue 30000 */
  readonly timeoutMs?: number;
  /**
   * Largest answer read; a longer one fails the attempt (transient, like a cut-off body) and is not
   * read further. HubSpot's largest answers (a batch of 100 records, a search page) are well under 1 MiB.
   * @defaultValue 16 MiB
   */
  readonly maxBodyBytes?: number;
}

/** `maxBodyBytes` default. */
const DEFAULT_HUBSPOT_MAX_BODY_BYTES = 16 * 1024 * 1024;

interface HubSpotResponse {
  /** 2xx status; 207 for a batch with some failed inputs. */
  readonly status: number;
  readonly body: unknown;
}

/**
 * Every HubSpot request goes through here, as one exchange (`send()` of `src/http`): the
 * budget before every attempt, one deadline over headers and body, the size bound, redaction of
 * the token. HubSpot brings its decide hook: learn from the rate-limit headers, retry what the
 * classifier says to retry; anything else becomes a {@link HubSpotError}.
 */
export class HubSpotHttp {
  readonly #options: HubSpotHttpOptions;
  readonly #token: string;
  readonly #random: () => number;
  readonly #clean: (text: string) => string;

  constructor(options: HubSpotHttpOptions) {
    this.#options = options;
    this.#token = options.token;
    this.#random = options.random ?? Math.random;
    const redact = createRedactor([options.token]);
    this.#clean = (text) => redact(forTerminal(text));
  }

  async send(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, kind: RequestKind = 'general'): Promise<HubSpotResponse> {
    const { budget, retry: policy, logger, clock, dispatcher } = this.#options;
    const timeoutMs = this.#options.timeoutMs ?? 30_000;
    const label = { method, path: path.split('?')[0] ?? path };
    const spends = budget.for(kind);
    const payload = body === undefined ? {} : { body: JSON.stringify(body) };
    const headers = {
      authorization: `Bearer ${this.#token}`,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const decide = (outcome: ExchangeOutcome, attempt: number): ExchangeDecision<HubSpotResponse> => {
      spends.settle('response' in outcome ? outcome.response : undefined);
      const failure = failureOf(outcome, timeoutMs);
      if ('status' in failure && failure.status >= 200 && failure.status < 300 && failure.bodyProblem === undefined) {
        logger.debug({ ...label, status: failure.status, attempt }, 'hubspot request');
        return { action: 'accept', value: { status: failure.status, body: failure.body } };
      }
      const status = 'status' in failure ? failure.status : undefined;
      const verdict = classifyHubSpotFailure(failure, { retry: attempt, policy, random: this.#random(), nowMs: clock.now(), clean: this.#clean });
      if (verdict.kind === 'daily_limit') budget.markDailyExhausted();
      if (verdict.kind === 'rate_limited') budget.block(kind, verdict.waitMs);
      if (!verdict.retry || attempt >= policy.maxAttempts) {
        const cause = 'error' in failure ? causeOf(failure.error, this.#clean) : undefined;
        return { action: 'fail', error: this.#error({ ...label, ...(status === undefined ? {} : { status }) }, cause, verdict) };
      }
      logger.warn({ ...label, status, attempt, waitMs: verdict.waitMs, reason: verdict.reason }, 'hubspot request failed; retrying');
      return { action: 'retry', waitMs: verdict.waitMs };
    };
    return send<HubSpotResponse>({
      dispatcher,
      timeoutMs,
      maxBodyBytes: this.#options.maxBodyBytes ?? DEFAULT_HUBSPOT_MAX_BODY_BYTES,
      redact: this.#clean,
      sleep: (ms) => clock.sleep(ms),
      acquire: async () => {
        if (budget.dailyExhausted) throw this.#error(label, undefined, dailyExhausted());
        await spends.acquire();
      },
      request: () => ({ url: new URL(path, this.#options.baseUrl), method, headers, ...payload }),
      decide,
    });
  }

  #error(label: { method: string; path: string; status?: number }, cause: Error | undefined, verdict: Classification): HubSpotError {
    return new HubSpotError(label, verdict, cause === undefined ? undefined : { cause });
  }
}

function dailyExhausted(): Classification {
  return stopAnswer('daily_limit', 'the daily limit was reached (X-HubSpot-RateLimit-Daily-Remaining: 0 or a 429 DAILY); not sent', 'DAILY');
}

// A complete answer as the classifier reads it; a passed deadline named with its bound.
function failureOf(outcome: ExchangeOutcome, timeoutMs: number): HubSpotFailure {
  if ('response' in outcome) {
    const { status, headers, body } = outcome.response;
    const read = parseJson(body.toString('utf8'));
    // A 2xx whose body is there but not JSON (a proxy's page) is no answer: retried, then said as such.
    const bodyProblem = !read.ok && read.problem === 'not_json' && status >= 200 && status < 300 ? { bodyProblem: 'not_json' as const } : {};
    return { status, body: jsonValue(read), headers: flattenHeaders(headers), ...bodyProblem };
  }
  if (!outcome.timedOut) return { error: outcome.error };
  const error = Object.assign(new Error(`no complete answer within ${timeoutMs} ms (timeoutMs)`), { name: 'TimeoutError' });
  return { error };
}

// Only code and message of a network error are kept: undici errors can hold sockets and request options.
function causeOf(error: unknown, scrub: (text: string) => string): Error {
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const cause = new Error(scrub(message));
  if (code !== undefined) Object.assign(cause, { code });
  return cause;
}
