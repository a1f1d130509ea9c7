import { getGlobalDispatcher, type Dispatcher } from 'undici';
import { classifyHttp, type HttpVerdict, type ServicePolicy } from './classify.js';
import { abortableSleep, send, type Sleep } from './exchange.js';

/** A failed attempt that will be made again, told before the wait. */
export interface ReachRetry {
  /** The attempt that failed, from 1. */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly waitMs: number;
  readonly verdict: HttpVerdict;
}

export interface ReachOptions {
  /** The service's policy: which failures pass, and the backoff between attempts. */
  readonly policy: ServicePolicy;
  /** Attempts including the first: the service's configured `retry.maxAttempts`. */
  readonly maxAttempts: number;
  /** Bound on one attempt, ms. */
  readonly timeoutMs: number;
  /** @defaultValue undici's global dispatcher */
  readonly dispatcher?: Dispatcher;
  /** @defaultValue {@link abortableSleep} */
  readonly sleep?: Sleep;
  /** Jitter source in [0, 1). @defaultValue `Math.random` */
  readonly random?: () => number;
  /** @defaultValue `Date.now` */
  readonly now?: () => number;
  readonly onRetry?: (retry: ReachRetry) => void;
}

/**
 * The one start-up reachability check. Any HTTP answer to `HEAD url`, whatever its status, proves
 * the service is there: a server without `HEAD` answers 404 or 405, and a 5xx comes from a live
 * server or the load balancer in front of it; what an answer means is for the work itself, which
 * has its own retries. A failure the policy retries (reset, refused, timeout) is tried again
 * after the policy's wait, up to `maxAttempts` attempts; then, or at once for one it does not
 * retry (TLS, a bad URL), its error is thrown. Resolves with the status.
 */
export async function reachHttp(url: string, options: ReachOptions): Promise<number> {
  const { policy, maxAttempts, timeoutMs, dispatcher, sleep = abortableSleep, random = Math.random, now = Date.now } = options;
  return send<number>({
    dispatcher: dispatcher ?? getGlobalDispatcher(),
    timeoutMs,
    // The status already answers the question: nothing of a body is kept, and a body cut short changes nothing.
    maxBodyBytes: 0,
    overflow: 'cut',
    sleep,
    request: () => ({ url: new URL(url), method: 'HEAD', headers: {} }),
    decide: (outcome, attempt) => {
      if ('response' in outcome) return { action: 'accept', value: outcome.response.status };
      if (outcome.head !== undefined) return { action: 'accept', value: outcome.head.status };
      const verdict = classifyHttp({ error: outcome.error }, policy, { nowMs: now(), attempt, random: random() });
      if (!verdict.retry || attempt >= maxAttempts) return { action: 'fail', error: asError(outcome.error) };
      options.onRetry?.({ attempt, maxAttempts, waitMs: verdict.waitMs, verdict });
      return { action: 'retry', waitMs: verdict.waitMs };
    },
  });
}

// What a request rejects with is an Error in practice; anything else is wrapped so it can be thrown.
function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}
