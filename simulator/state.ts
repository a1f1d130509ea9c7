import type { IncomingMessage } from 'node:http';
import type { ApiKeyRegistry } from './api-keys.js';
import type { BusinessData } from './business.js';
import type { ListOrder } from './call-list.js';
import type { CounterBook } from './counters.js';
import type { FaultInjector } from './faults.js';
import type { FixedWindowLimiter } from './rate-limiter.js';
import type { RecordingHost } from './recording-host.js';
import type { Responder } from './responder.js';
import type { SessionStore } from './sessions.js';
import type { BrokenPaging, Hostile } from './types.js';

/** Everything the request handlers share; one per simulator instance. */
export interface SimState {
  businesses: readonly BusinessData[];
  keys: ApiKeyRegistry;
  sessions: SessionStore;
  limiter: FixedWindowLimiter;
  faults: FaultInjector;
  counters: CounterBook;
  responder: Responder;
  cursorSecret: number;
  cursorTtlMs: number | undefined;
  /** Cursors name a position only (no issue time): the same position, the same cursor. */
  stableCursors: boolean;
  cursorOnLastPage: boolean;
  /** Order of the v1 lists (`/calls`, `/sms`). */
  v1Order: ListOrder;
  /** v2 lists silently serve at most this many records. */
  v2LimitCap: number | undefined;
  /** v1 lists silently serve at most this many records per page. */
  v1LimitCap: number | undefined;
  brokenPaging: BrokenPaging;
  /** Replaced whole by `setHostile`; `unavailable` counts down in place. */
  hostile: Hostile;
  /** v1 sub-paths (e.g. `/sms`) answered without the `data` wrapper. */
  legacyEnvelope: ReadonlySet<string>;
  /** The recordings host: media and provider links, their expiry, budget and faults. */
  recordings: RecordingHost;
  clock: () => number;
}

/** Who is asking: an API key (acts as Admin) or a session user. */
export type Caller = { kind: 'key'; keyId: string } | { kind: 'session'; role: 'owner' | 'viewer' };

export interface V1Request {
  req: IncomingMessage;
  business: BusinessData;
  caller: Caller;
  method: string;
  /** Path below `/api/v1`, e.g. `/calls`. */
  path: string;
  query: URLSearchParams;
  nowMs: number;
}

/** A route's answer before the envelope: a JSON payload or an error message. */
export type RouteResult = { status: number; payload: string } | { status: number; error: string };

export function ok(payload: string, status = 200): RouteResult {
  return { status, payload };
}

export function fail(status: number, error: string): RouteResult {
  return { status, error };
}
