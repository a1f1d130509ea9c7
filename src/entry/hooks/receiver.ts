import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { headerValue, jsonValue, parseJson } from '../../http/index.js';
import { ByteBudget, ClientRateLimit, CountedLine, LogThrottle } from './client-limits.js';
import { ClientShares } from '../server/connection-limits.js';
import { answerThenCut, answerThenDrain, fieldText, readBody } from './read-body.js';
import { BodyDigest, matchToken, readClaim, type SignatureSettings, type SignedClaim } from './signature.js';

/** What became of one delivery; the label of `callsync_webhook_deliveries_total{outcome}`. */
export type DeliveryOutcome =
  | 'accepted'
  | 'duplicate'
  | 'unauthorized'
  | 'replayed'
  | 'wrong_business'
  | 'unknown_business'
  | 'too_large'
  | 'rate_limited'
  | 'busy'
  | 'timeout'
  | 'aborted'
  | 'bad_request';

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
  /** Deliveries in progress, in all and per client address (and, on `hooks.port`, connections). */
  readonly maxConnections: number;
  readonly maxConnectionsPerClient: number;
  /** Bytes of bodies kept in memory at once, across connections. */
  readonly maxBytesInFlight: number;
  /** A body not received this long after its headers is cut (408). */
  readonly bodyTimeoutMs: number;
}

interface HookReceiverOptions {
  readonly settings: HookSettings;
  readonly businesses: ReadonlyMap<string, HookBusiness>;
  /** Starts (or coalesces into) a sync of these streams; the receiver never waits for it. */
  readonly trigger: (business: string, streams: readonly string[]) => Promise<void>;
  /**
   * True the first time a signed delivery (business and digest) is seen within `ttlMs`, across
   * replicas; absent, replays within the tolerance are not recognised.
   */
  readonly firstSighting?: (business: string, id: string, ttlMs: number) => Promise<boolean>;
  /** Every delivery's outcome, `business` only when it names a configured one (metrics, last delivery). */
  readonly onDelivery?: (outcome: DeliveryOutcome, business: string | undefined, atMs: number) => void;
  readonly logger: Logger;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

export interface HookReceiver {
  /** True when the path is the receiver's (`{path}` or `{path}/{business}`). */
  owns(path: string): boolean;
  /** Answers one request on an owned path; never waits for a sync, never rejects. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
  /** Deliveries being received and bytes of bodies kept for them, now. */
  inFlight(): { readonly deliveries: number; readonly bytes: number };
  /** The limits a server of its own applies to connections (`hooks.port`). */
  readonly settings: HookSettings;
}

/**
 * After a refusal the rest of the body is read and thrown away, so the sender reads the answer,
 * then the connection is cut: for a body over the limit up to this many times the limit, for any
 * other refusal up to `DISCARD_BYTES` (a delivery is a few kilobytes; junk need not be read).
 * Never for longer than `DISCARD_MS`.
 */
const DISCARD_FACTOR = 16;
const DISCARD_BYTES = 65_536;
const DISCARD_MS = 2_000;
/** Refusals that end the connection once the body is drained: a sender over a limit gets no second request on it. */
const SHED: ReadonlySet<DeliveryOutcome> = new Set(['too_large', 'busy']);
/** A signed delivery is remembered this many tolerances: one either way of its timestamp. */
const SEEN_TOLERANCES = 2;

const STATUS: Readonly<Record<DeliveryOutcome, number>> = {
  accepted: 202,
  duplicate: 200,
  unauthorized: 401,
  replayed: 401,
  wrong_business: 403,
  unknown_business: 404,
  too_large: 413,
  rate_limited: 429,
  busy: 503,
  timeout: 408,
  // Never sent: the sender went away.
  aborted: 400,
  bad_request: 400,
};

const MESSAGE: Readonly<Record<DeliveryOutcome, string>> = {
  accepted: 'accepted',
  duplicate: 'duplicate: this delivery was already accepted',
  unauthorized: 'unauthorized: missing or bad signature',
  replayed: 'unauthorized: timestamp outside the tolerance',
  wrong_business: 'forbidden: the payload names another business than the path',
  unknown_business: 'unknown business',
  too_large: 'body too large',
  rate_limited: 'too many requests',
  busy: 'busy: too many deliveries in progress, retry later',
  timeout: 'body not received in time',
  aborted: 'aborted',
  bad_request: 'bad request',
};

function answer(outcome: DeliveryOutcome): { headers: Record<string, string | number>; body: string } {
  const body = `${JSON.stringify({ [STATUS[outcome] < 300 ? 'status' : 'error']: MESSAGE[outcome] })}\n`;
  return { body, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' } };
}

/** Who may have signed a delivery, known from its headers alone. */
type Claim = { readonly kind: 'hmac'; readonly signed: SignedClaim } | { readonly kind: 'token'; readonly secret: string };

/**
 * The webhook receiver of `run`, built to face the internet. Everything that needs no body comes
 * first, each check cheaper than the next: the client's rate limit (429), the business (404), the
 * declared length (413), the signature and timestamp headers (401; with a token, the token
 * itself), a free slot and room in the byte budget (503). Only then is the body read, within a
 * deadline (408), its HMAC computed as it arrives; it is parsed only once the signature holds. A
 * refusal is answered, then the rest of the body drained up to a cap so the sender reads it. A
 * signed delivery seen before within the tolerance is a replay (200 `duplicate`, no sync). Then
 * 202 at once and a coalesced sync. A delivery only says "something changed": nothing of its
 * payload but the business and the stream reaches the sink. Refusals are logged at most once a
 * minute per client address, aborted bodies in one line a minute.
 */
export function createHookReceiver(options: HookReceiverOptions): HookReceiver {
  const { settings, businesses, logger } = options;
  const now = options.now ?? Date.now;
  const limit = new ClientRateLimit(settings.rateLimit.requests, settings.rateLimit.perMs);
  // Deliveries in progress: past either cap a delivery is answered 503 before its body is read.
  const slots = new ClientShares(settings.maxConnections, settings.maxConnectionsPerClient);
  const budget = new ByteBudget(settings.maxBytesInFlight, settings.maxBodyBytes);
  const logged = new LogThrottle();
  const aborted = new CountedLine((count) => logger.warn({ count }, 'webhook bodies cut off by their senders (one line a minute at most)'));
  const base = settings.path;
  const from = settings.businessFrom;
  const bodyField = from !== undefined && 'field' in from ? from.field : undefined;
  // The body is kept only when something in it is read after the signature.
  const keepsBody = settings.streamField !== undefined || bodyField !== undefined;
  const everySecret = [...new Set([...businesses.values()].map((b) => b.secret))];
  const drainLarge = { capBytes: settings.maxBodyBytes * DISCARD_FACTOR, capMs: DISCARD_MS };
  const drainOther = { capBytes: DISCARD_BYTES, capMs: DISCARD_MS };

  function counted(outcome: DeliveryOutcome, business: string | undefined): void {
    options.onDelivery?.(outcome, business, now());
  }

  function refuse(req: IncomingMessage, res: ServerResponse, source: string, outcome: DeliveryOutcome, business: string | undefined): void {
    counted(outcome, business);
    if (outcome !== 'rate_limited' && logged.allow(source, now()))
      logger.warn({ source, business, outcome, status: STATUS[outcome] }, 'webhook delivery refused (logged once a minute per client)');
    const { headers, body } = answer(outcome);
    if (outcome === 'rate_limited') headers['retry-after'] = String(Math.ceil(settings.rateLimit.perMs / 1000));
    if (outcome === 'busy') headers['retry-after'] = '1';
    if (outcome === 'timeout') return answerThenCut(req, res, STATUS[outcome], headers, body);
    answerThenDrain(req, res, { status: STATUS[outcome], headers, body, close: SHED.has(outcome) }, outcome === 'too_large' ? drainLarge : drainOther);
  }

  function claimOf(req: IncomingMessage, secrets: readonly string[]): Claim | DeliveryOutcome {
    if (settings.auth === 'token') {
      const secret = matchToken(settings.tokenHeader, secrets, req.headers);
      return secret === undefined ? 'unauthorized' : { kind: 'token', secret };
    }
    const signed = readClaim(settings.signature, req.headers, now());
    if (signed === 'stale') return 'replayed';
    return typeof signed === 'string' ? 'unauthorized' : { kind: 'hmac', signed };
  }

  function streamsOf(business: HookBusiness, payload: unknown): readonly string[] {
    if (settings.streamField === undefined) return business.streams;
    const value = fieldText(payload, settings.streamField);
    const stream = value === undefined || !Object.hasOwn(settings.streamMap, value) ? undefined : settings.streamMap[value];
    return stream !== undefined && business.streams.includes(stream) ? [stream] : business.streams;
  }

  /** The business named by the path or header: its name, undefined when a payload field names it, null when none is configured by that name. */
  function nameBeforeBody(req: IncomingMessage, path: string): string | undefined | null {
    let name: string | undefined;
    if (path !== base) {
      try {
        name = decodeURIComponent(path.slice(base.length + 1));
      } catch {
        return null;
      }
    } else if (from !== undefined && 'header' in from) name = headerValue(req.headers, from.header);
    if (name !== undefined) return businesses.has(name) ? name : null;
    return bodyField === undefined ? null : undefined;
  }

  function accept(res: ServerResponse, name: string, streams: readonly string[]): void {
    const { headers, body } = answer('accepted');
    res.writeHead(202, headers).end(body);
    counted('accepted', name);
    options.trigger(name, streams).catch((error: unknown) => {
      // While Redis is away every delivery fails alike: one line a minute says it.
      if (!logged.allow('\0trigger', now())) return;
      logger.error(
        { business: name, err: error instanceof Error ? error.message : String(error) },
        'webhook accepted but its sync could not be queued; the next scheduled poll brings the change',
      );
    });
  }

  /** Whether this signed delivery is new; a Redis failure lets it through (the sync it starts fails alike, and says so). */
  async function firstTime(name: string, digest: Buffer): Promise<boolean> {
    if (options.firstSighting === undefined) return true;
    return options.firstSighting(name, digest.toString('hex'), settings.signature.toleranceMs * SEEN_TOLERANCES).catch(() => true);
  }

  async function receive(req: IncomingMessage, res: ServerResponse, source: string, known: string | undefined, claim: Claim): Promise<void> {
    const hold = keepsBody ? budget.hold(source) : undefined;
    try {
      const declared = Number(req.headers['content-length'] ?? '0');
      if (hold !== undefined && !hold.grow(declared)) return refuse(req, res, source, 'busy', known);
      const secrets = known === undefined ? everySecret : [businesses.get(known)?.secret ?? ''];
      const digest = claim.kind === 'hmac' ? new BodyDigest(settings.signature, secrets, claim.signed.timestamp) : undefined;
      const read = await readBody(req, {
        maxBytes: settings.maxBodyBytes,
        deadlineMs: settings.bodyTimeoutMs,
        onChunk: (chunk) => digest?.update(chunk),
        keep: hold === undefined ? undefined : (total) => hold.grow(total),
      });
      if (read.end === 'aborted') {
        counted('aborted', known);
        return void aborted.add();
      }
      if (read.end !== 'done') return refuse(req, res, source, read.end, known);
      const signedBy = claim.kind === 'token' ? { secret: claim.secret, digest: undefined } : digest?.match(claim.signed);
      if (signedBy === undefined) return refuse(req, res, source, 'unauthorized', known);
      // Parsed only now that the signature holds.
      const payload = keepsBody ? jsonValue(parseJson(read.body.toString('utf8'))) : undefined;
      const named = bodyField === undefined ? undefined : fieldText(payload, bodyField);
      if (known === undefined && payload === undefined) return refuse(req, res, source, 'bad_request', undefined);
      const name = known ?? named;
      const business = name === undefined ? undefined : businesses.get(name);
      if (name === undefined || business === undefined) return refuse(req, res, source, 'unknown_business', undefined);
      // A delivery signed for one business must not start another's sync: the secret may be shared, the name in the body is signed.
      if (known !== undefined && named !== undefined && named !== known) return refuse(req, res, source, 'wrong_business', name);
      if (business.secret !== signedBy.secret) return refuse(req, res, source, 'unauthorized', name);
      if (signedBy.digest !== undefined && !(await firstTime(name, signedBy.digest))) {
        counted('duplicate', name);
        const { headers, body } = answer('duplicate');
        return void res.writeHead(200, headers).end(body);
      }
      accept(res, name, streamsOf(business, payload));
    } finally {
      hold?.release();
    }
  }

  return {
    settings,
    owns: (path) => path === base || (path.startsWith(`${base}/`) && path.length > base.length + 1 && !path.slice(base.length + 1).includes('/')),
    inFlight: () => ({ deliveries: slots.used, bytes: budget.used }),
    async handle(req, res, path) {
      const source = req.socket.remoteAddress ?? 'unknown';
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST', 'content-type': 'application/json; charset=utf-8', connection: 'close' });
        return void res.end(`${JSON.stringify({ error: 'method not allowed: deliveries are POST' })}\n`);
      }
      if (!limit.take(source, now())) return refuse(req, res, source, 'rate_limited', undefined);
      const known = nameBeforeBody(req, path);
      if (known === null) return refuse(req, res, source, 'unknown_business', undefined);
      if (Number(req.headers['content-length'] ?? '0') > settings.maxBodyBytes) return refuse(req, res, source, 'too_large', known);
      const claim = claimOf(req, known === undefined ? everySecret : [businesses.get(known)?.secret ?? '']);
      if (typeof claim === 'string') return refuse(req, res, source, claim, known);
      if (!slots.tryAdd(source, 1)) return refuse(req, res, source, 'busy', known);
      try {
        await receive(req, res, source, known, claim);
      } finally {
        slots.remove(source, 1);
      }
    },
  };
}
