import type { IncomingMessage } from 'node:http';
import type { CounterBook } from './counters.js';
import { ordinaryError } from './envelope.js';
import type { Reply } from './responder.js';
import type { Hostile } from './types.js';

/** Every hostile behaviour off. */
export const NO_HOSTILE: Hostile = {
  retryAfter429: '',
  exhaustedUntilSec: 0,
  hugeBodyBytes: 0,
  hugeBodyDeclared: false,
  trickleMs: 0,
  echoCredentials: null,
  unavailable: null,
  listShare: 1,
  shortPages: null,
  hugeCursorBytes: 0,
};

/** How many records this answer of `/calls` may hold at most under `hostile.shortPages` (counting it down), or undefined. */
export function takeShortPage(hostile: Hostile): number | undefined {
  const short = hostile.shortPages;
  if (short === null || short.pages <= 0) return undefined;
  hostile.shortPages = short.pages > 1 ? { ...short, pages: short.pages - 1 } : null;
  return short.records;
}

/**
 * Which positions of a list `hostile.listShare` leaves in it (evenly spread: at 1/3, one of every
 * three), or undefined when it lists everything. Positions are stable while records arrive, so the
 * same records stay hidden while it lasts.
 */
export function listedShare(hostile: Hostile): ((position: number) => boolean) | undefined {
  const share = hostile.listShare;
  if (!(share < 1)) return undefined;
  return (position) => Math.floor((position + 1) * share) > Math.floor(position * share);
}

const FILLER = 'upstream trace: the handler failed while reading the request; ';

function filler(length: number): string {
  return FILLER.repeat(Math.ceil(length / FILLER.length)).slice(0, Math.max(0, length));
}

/** A long error message holding the request's Authorization header and its bare credential from character `at`. */
function echoMessage(req: IncomingMessage, at: number, length: number): string {
  const header = req.headers.authorization ?? '';
  const credential = /^Bearer\s+(\S+)/i.exec(header)?.[1] ?? '';
  const leak = `Authorization: ${header} (credential ${credential})`;
  return filler(at) + leak + filler(length - at - leak.length);
}

/**
 * A reply that takes the place of routing, or undefined: a 503 with `Retry-After` while
 * `unavailable` lasts (it counts down in `hostile`), else an error echoing the credential.
 */
export function hostileReply(hostile: Hostile, req: IncomingMessage, headers: Record<string, string>, counters: CounterBook): Reply | undefined {
  const down = hostile.unavailable;
  if (down !== null && down.requests > 0) {
    hostile.unavailable = { ...down, requests: down.requests - 1 };
    counters.fault('unavailable');
    const body = ordinaryError(503, 'Service unavailable: maintenance in progress');
    return { status: 503, body, headers: { ...headers, 'retry-after': down.retryAfter } };
  }
  const echo = hostile.echoCredentials;
  if (echo !== null) {
    counters.fault('echoedCredentials');
    return { status: echo.status, body: ordinaryError(echo.status, echoMessage(req, echo.at, echo.length)), headers };
  }
  return undefined;
}

/** Rate-limit headers as a hostile upstream sends them: nothing left until `exhaustedUntilSec`. */
export function hostileRateHeaders(hostile: Hostile, headers: Record<string, string>): Record<string, string> {
  if (hostile.exhaustedUntilSec <= 0) return headers;
  return {
    'x-ratelimit-limit': headers['x-ratelimit-limit'] ?? '60',
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': String(hostile.exhaustedUntilSec),
  };
}
