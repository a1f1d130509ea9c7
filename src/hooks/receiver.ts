import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ClientRateLimit, LogThrottle } from './client-limits.js';
import { discardRest, fieldText, readBoundedBody } from './read-body.js';
import { verifySignature, verifyToken, type SignatureSettings, type Verdict } from './signature.js';

/** What became of one delivery; the label of `callsync_webhook_deliveries_total{outcome}`. */
export type DeliveryOutcome = 'accepted' | 'unauthorized' | 'replayed' | 'unknown_business' | 'too_large' | 'rate_limited' | 'bad_request';

/** A configured business as the receiver sees it. */
export interface HookBusiness {
  /** Its `webhookSecret`, else `hooks.secret`. */
  readonly secret: string;
  /** Its streams, in config order: a delivery syncs them all unless the payload names one. */
  readonly streams: readonly string[];
}

/** The receiver's settings: `hooks` of the config, durations in milliseconds. */
export interface HookSettings {
  readonly path: string;
  readonly auth: 'hmac' | 'token';
  readonly signature: SignatureSettings;
  readonly tokenHeader: string;
  readonly businessFrom?: { readonly header: string } | { readonly field: string } | undefined;
  readonly streamField?: string | undefined;
  readonly streamMap: Readonly<Record<string, string>>;
  readonly maxBodyBytes: number;
  readonly rateLimit: { readonly requests: number; readonly perMs: number };
}

interface HookReceiverOptions {
  readonly settings: HookSettings;
  readonly businesses: ReadonlyMap<string, HookBusiness>;
  /** Starts (or coalesces into) a sync of these streams; the receiver never waits for it. */
  readonly trigger: (business: string, streams: readonly string[]) => Promise<void>;
  /** Every delivery's outcome, `business` only when it names a configured one (metrics, last delivery). */
  readonly onDelivery?: (outcome: DeliveryOutcome, business: string | undefined, atMs: number) => void;
  readonly logger: Logger;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

export interface HookReceiver {
  /** True when the path is the receiver's (`{path}` or `{path}/{business}`). */
  owns(path: string): boolean;
  /** Answers one request on an owned path; never waits for a sync. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
}

/** A refused body is discarded up to this many times the limit, or for this long, then the connection is cut. */
const DISCARD_FACTOR = 16;
const DISCARD_MS = 2_000;

const STATUS: Readonly<Record<DeliveryOutcome, number>> = {
  accepted: 202,
  unauthorized: 401,
  replayed: 401,
  unknown_business: 404,
  too_large: 413,
  rate_limited: 429,
  bad_request: 400,
};

const MESSAGE: Readonly<Record<DeliveryOutcome, string>> = {
  accepted: 'accepted',
  unauthorized: 'unauthorized: missing or bad signature',
  replayed: 'unauthorized: timestamp outside the tolerance',
  unknown_business: 'unknown business',
  too_large: 'body too large',
  rate_limited: 'too many requests',
  bad_request: 'bad request',
};

function reply(res: ServerResponse, outcome: DeliveryOutcome, headers: Readonly<Record<string, string>> = {}): void {
  const body = `${JSON.stringify({ [outcome === 'accepted' ? 'status' : 'error']: MESSAGE[outcome] })}\n`;
  res.writeHead(STATUS[outcome], {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}

function headerText(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The webhook receiver of `run`. In order, each cheaper than the next: the client's rate limit
 * (429), the business (404), the declared length (413, nothing read), the body read up to the
 * limit (413), the signature or token (401), then 202 at once and a coalesced sync. A delivery
 * only says "something changed": nothing of its payload but the business and the stream reaches
 * the sink, so a forged or replayed one costs a request or two at most. Refusals are logged at
 * most once a minute per client address.
 */
export function createHookReceiver(options: HookReceiverOptions): HookReceiver {
  const { settings, businesses, logger } = options;
  const now = options.now ?? Date.now;
  const limit = new ClientRateLimit(settings.rateLimit.requests, settings.rateLimit.perMs);
  const logged = new LogThrottle();
  const base = settings.path;

  function refuse(req: IncomingMessage, res: ServerResponse, source: string, outcome: DeliveryOutcome, business: string | undefined): void {
    const atMs = now();
    options.onDelivery?.(outcome, business, atMs);
    if (outcome !== 'rate_limited' && logged.allow(source, atMs))
      logger.warn({ source, business, outcome, status: STATUS[outcome] }, 'webhook delivery refused (logged once a minute per client)');
    const retry: Record<string, string> = outcome === 'rate_limited' ? { 'retry-after': String(Math.ceil(settings.rateLimit.perMs / 1000)) } : {};
    reply(res, outcome, retry);
    discardRest(req, settings.maxBodyBytes * DISCARD_FACTOR, DISCARD_MS);
  }

  function verify(business: HookBusiness, req: IncomingMessage, body: Buffer): Verdict {
    if (settings.auth === 'token') return verifyToken(settings.tokenHeader, business.secret, req.headers);
    return verifySignature(settings.signature, business.secret, req.headers, body, now());
  }

  function streamsOf(business: HookBusiness, payload: unknown): readonly string[] {
    if (settings.streamField === undefined) return business.streams;
    const value = fieldText(payload, settings.streamField);
    const stream = value === undefined || !Object.hasOwn(settings.streamMap, value) ? undefined : settings.streamMap[value];
    return stream !== undefined && business.streams.includes(stream) ? [stream] : business.streams;
  }

  function nameFromPath(path: string): string | undefined | null {
    if (path === base) return undefined;
    try {
      return decodeURIComponent(path.slice(base.length + 1));
    } catch {
      return null;
    }
  }

  return {
    owns: (path) => path === base || (path.startsWith(`${base}/`) && path.length > base.length + 1 && !path.slice(base.length + 1).includes('/')),
    async handle(req, res, path) {
      const source = req.socket.remoteAddress ?? 'unknown';
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST', 'content-type': 'application/json; charset=utf-8', connection: 'close' });
        return void res.end(`${JSON.stringify({ error: 'method not allowed: deliveries are POST' })}\n`);
      }
      if (!limit.take(source, now())) return refuse(req, res, source, 'rate_limited', undefined);
      let name = nameFromPath(path);
      if (name === null) return refuse(req, res, source, 'unknown_business', undefined);
      const from = settings.businessFrom;
      if (name === undefined && from !== undefined && 'header' in from) name = headerText(req, from.header);
      const named = name === undefined ? undefined : businesses.get(name);
      if (name !== undefined && named === undefined) return refuse(req, res, source, 'unknown_business', undefined);
      if (name === undefined && (from === undefined || 'header' in from)) return refuse(req, res, source, 'unknown_business', undefined);
      const declared = Number(req.headers['content-length'] ?? '0');
      if (declared > settings.maxBodyBytes) return refuse(req, res, source, 'too_large', name);
      const body = await readBoundedBody(req, settings.maxBodyBytes);
      if (body === 'too_large') return refuse(req, res, source, 'too_large', name);
      const payload: unknown = settings.streamField !== undefined || (from !== undefined && 'field' in from) ? parseJson(body) : undefined;
      if (name === undefined && from !== undefined && 'field' in from) {
        if (payload === undefined) return refuse(req, res, source, 'bad_request', undefined);
        name = fieldText(payload, from.field);
      }
      const business = name === undefined ? undefined : businesses.get(name);
      if (name === undefined || business === undefined) return refuse(req, res, source, 'unknown_business', undefined);
      const verdict = verify(business, req, body);
      if (verdict !== 'ok') return refuse(req, res, source, verdict === 'stale' ? 'replayed' : 'unauthorized', name);
      reply(res, 'accepted');
      options.onDelivery?.('accepted', name, now());
      const accepted = name;
      options.trigger(accepted, streamsOf(business, payload)).catch((error: unknown) => {
        // While Redis is away every delivery fails alike: one line a minute says it.
        if (!logged.allow('\0trigger', now())) return;
        logger.error(
          { business: accepted, err: error instanceof Error ? error.message : String(error) },
          'webhook accepted but its sync could not be queued; the next scheduled poll brings the change',
        );
      });
    },
  };
}
