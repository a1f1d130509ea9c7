import { hostileRateHeaders } from './hostile.js';
import { describeWindow } from './rate-limiter.js';
import type { Reply } from './responder.js';
import type { SimState } from './state.js';

interface AdmitResult {
  headers: Record<string, string>;
  /** The 429 reply when the request is refused. */
  refused?: Reply;
}

/**
 * Takes one request from the business's shared bucket and counts it. `storm` says whether a
 * configured 429 storm applies to this kind of request (v1 API-key requests only). Hostile
 * settings may rewrite the rate-limit headers and the 429's wait.
 */
export function admit(state: SimState, business: string, nowMs: number, storm: boolean): AdmitResult {
  const stormNow = storm && state.faults.stormActive(nowMs);
  const a = state.limiter.take(business, nowMs, stormNow);
  state.counters.window(business, a.windowStartMs, a.admitted);
  const headers = hostileRateHeaders(state.hostile, a.headers);
  if (a.admitted) return { headers };
  state.counters.rateLimited(business);
  if (stormNow) state.counters.fault('storm429');
  const hostileWait = state.hostile.retryAfter429;
  const trueWait = stormNow ? state.faults.stormRetryAfterSec(nowMs) : a.retryAfterSec;
  const retryAfter = /^\d+$/.test(hostileWait) ? Number(hostileWait) : trueWait;
  const config = state.limiter.config;
  const limitText = config === false ? 'Rate limit' : `Rate limit of ${config.limit} requests per ${describeWindow(config.windowMs)}`;
  const body = JSON.stringify({
    error: 'rate_limit_exceeded',
    message: `${limitText} exceeded; retry in ${retryAfter} seconds`,
    retry_after: retryAfter,
  });
  const header = hostileWait === '' ? String(retryAfter) : hostileWait;
  return { headers, refused: { status: 429, body, headers: { ...headers, 'retry-after': header } } };
}
