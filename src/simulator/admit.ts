import { describeWindow } from './rate-limiter.js';
import type { Reply } from './responder.js';
import type { SimState } from './state.js';

export interface AdmitResult {
  headers: Record<string, string>;
  /** The 429 reply when the request is refused. */
  refused?: Reply;
}

/**
 * Takes one request from the business's shared bucket and counts it. `storm` says whether a
 * configured 429 storm applies to this kind of request (v1 API-key requests only).
 */
export function admit(state: SimState, business: string, nowMs: number, storm: boolean): AdmitResult {
  const stormNow = storm && state.faults.stormActive(nowMs);
  const a = state.limiter.take(business, nowMs, stormNow);
  state.counters.window(business, a.windowStartMs, a.admitted);
  if (a.admitted) return { headers: a.headers };
  state.counters.rateLimited(business);
  if (stormNow) state.counters.fault('storm429');
  const retryAfter = stormNow ? state.faults.stormRetryAfterSec(nowMs) : a.retryAfterSec;
  const config = state.limiter.config;
  const limitText = config === false ? 'Rate limit' : `Rate limit of ${config.limit} requests per ${describeWindow(config.windowMs)}`;
  const body = JSON.stringify({
    error: 'rate_limit_exceeded',
    message: `${limitText} exceeded; retry in ${retryAfter} seconds`,
    retry_after: retryAfter,
  });
  return { headers: a.headers, refused: { status: 429, body, headers: { ...a.headers, 'retry-after': String(retryAfter) } } };
}
