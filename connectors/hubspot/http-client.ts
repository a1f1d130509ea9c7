import type { Logger } from 'pino';
import { createRedactor, forTerminal } from '../../src/redact/index.js';
import { request, type Dispatcher } from 'undici';
import type { HubSpotBudget, RequestKind } from './budget.js';
import { classifyHubSpotFailure, type Classification, type HubSpotFailure } from './classify.js';
import type { HubSpotRetryPolicy } from './config.js';
import { HubSpotError } from './errors.js';
import type { Clock } from './rolling-window.js';

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
  /** Bound on waiting for response headers and between body chunks. @defaultValue 30000 */
  readonly timeoutMs?: number;
}

export interface HubSpotResponse {
  /** 2xx status; 207 for a batch with some failed inputs. */
  readonly status: number;
  readonly body: unknown;
}

/**
 * Every HubSpot request goes through here: waits for the budget, sends with undici through the
 * injected dispatcher, learns from the rate-limit headers, and retries what the classifier says
 * to retry. Anything else becomes a {@link HubSpotError}.
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
    const { budget, retry: policy, logger, clock } = this.#options;
    const label = { method, path: path.split('?')[0] ?? path };
    for (let attempt = 1; ; attempt += 1) {
      if (budget.dailyExhausted) throw this.#error(label, undefined, dailyExhausted());
      await budget.take(kind);
      const outcome = await this.#attempt(method, path, body);
      if ('status' in outcome) budget.observe(outcome.headers, kind);
      if ('status' in outcome && outcome.status >= 200 && outcome.status < 300) {
        logger.debug({ ...label, status: outcome.status, attempt }, 'hubspot request');
        return { status: outcome.status, body: outcome.body };
      }
      const status = 'status' in outcome ? outcome.status : undefined;
      const verdict = classifyHubSpotFailure(outcome, { retry: attempt, policy, random: this.#random(), nowMs: clock.now(), clean: this.#clean });
      if (verdict.kind === 'daily_limit') budget.markDailyExhausted();
      if (verdict.kind === 'rate_limited') budget.block(kind, verdict.waitMs);
      if (!verdict.retry || attempt >= policy.maxAttempts) {
        const cause = 'error' in outcome ? causeOf(outcome.error, this.#clean) : undefined;
        throw this.#error({ ...label, ...(status === undefined ? {} : { status }) }, cause, verdict);
      }
      logger.warn({ ...label, status, attempt, waitMs: verdict.waitMs, reason: verdict.reason }, 'hubspot request failed; retrying');
      await clock.sleep(verdict.waitMs);
    }
  }

  async #attempt(method: string, path: string, body: unknown): Promise<HubSpotFailure> {
    const timeout = this.#options.timeoutMs ?? 30_000;
    try {
      const response = await request(new URL(path, this.#options.baseUrl), {
        method,
        dispatcher: this.#options.dispatcher,
        headers: {
          authorization: `Bearer ${this.#token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      const text = await response.body.text();
      return { status: response.statusCode, body: parseJson(text), headers: flatHeaders(response.headers) };
    } catch (error) {
      return { error };
    }
  }

  #error(label: { method: string; path: string; status?: number }, cause: Error | undefined, verdict: Classification): HubSpotError {
    return new HubSpotError(label, verdict, cause === undefined ? undefined : { cause });
  }

}

function dailyExhausted(): Classification {
  const reason = 'the daily limit was reached (X-HubSpot-RateLimit-Daily-Remaining: 0 or a 429 DAILY); not sent';
  return { kind: 'daily_limit', retry: false, waitMs: 0, batchRejection: false, reason, hubspotMessage: undefined, correlationId: undefined, policyName: 'DAILY' };
}

// Only code and message of a network error are kept: undici errors can hold sockets and request options.
function causeOf(error: unknown, scrub: (text: string) => string): Error {
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const cause = new Error(scrub(message));
  if (code !== undefined) Object.assign(cause, { code });
  return cause;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) flat[name.toLowerCase()] = Array.isArray(value) ? value[0] : value;
  return flat;
}
