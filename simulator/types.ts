import type { RecordingCounters, Recordings, RecordingTruth } from './recording-types.js';
import type { WebhookCounters, WebhookSenderOptions } from './webhook-sender.js';
/** Public contract of the upstream simulator: options, handle, counters and ground truth. */

/** Fault probabilities and the 429 storm. Probabilities are per request, from 0 to 1. */
export interface Faults {
  /** Chance of a 500 with the ordinary v1 error body. @defaultValue 0 */
  errorRate: number;
  /** Chance that the response is delayed by `slowMs`. @defaultValue 0 */
  slowRate: number;
  /** Delay of a slow response in milliseconds. @defaultValue 2000 */
  slowMs: number;
  /** Chance of correct headers, half the body, then a closed socket. @defaultValue 0 */
  truncateRate: number;
  /** Chance of a connection reset before any response byte. @defaultValue 0 */
  resetRate: number;
  /** Epoch ms; until then every v1 API-key request gets 429 regardless of budget. @defaultValue 0 */
  stormUntilMs: number;
  /** Chance of a 200 whose body is not JSON (an HTML error page from a proxy). @defaultValue 0 */
  badJsonRate: number;
}

/**
 * Paging servers that break the contract, one switch per behaviour (issue 11). Each makes a
 * client that trusts `has_more`, `next_cursor`, `offset` or `total` loop or stop early.
 */
export interface BrokenPaging {
  /** After the first page, `next_cursor` is exactly the cursor the request sent, with `has_more: true`. */
  stuckCursor: boolean;
  /** `next_cursor` alternates between the cursors of pages 2 and 3 for ever, with `has_more: true`. */
  cyclingCursor: boolean;
  /** Past the last call, `has_more` stays true: empty pages (cursor, offset and page modes) for ever. */
  emptyPagesForever: boolean;
  /** `offset` and `page` are ignored: every offset or page request gets the first page. */
  ignoreOffset: boolean;
  /** `total` is -1 in every mode (the records and `has_more` stay right). */
  negativeTotal: boolean;
}

/**
 * An upstream that pushes a client's bounds (issue 11). Applies to v1 API-key and v2 requests,
 * never to sessions or login. Zero, '' and null mean off.
 */
export interface Hostile {
  /** `Retry-After` on every 429, verbatim (`'999999999'` or an HTTP date); a number also goes to `retry_after`. */
  retryAfter429: string;
  /**
   * Unix seconds: every response says `X-RateLimit-Remaining: 0` and `X-RateLimit-Reset` this
   * (year 3000: 32503680000), while requests are still served.
   */
  exhaustedUntilSec: number;
  /** List responses (v1 `/calls`, `/sms`, v2 lists) become a valid JSON body of this many bytes, streamed in 64 KiB chunks. */
  hugeBodyBytes: number;
  /** Send `Content-Length` with the huge body (otherwise chunked, so only counting can stop it). */
  hugeBodyDeclared: boolean;
  /** Response bodies trickle one byte every this many ms (headers and `Content-Length` at once). */
  trickleMs: number;
  /**
   * Every request is answered `status` with an ordinary error body whose message (`length`
   * characters) holds the request's `Authorization` header and bare credential from character `at`.
   */
  echoCredentials: { status: number; at: number; length: number } | null;
  /** The next `requests` requests are answered 503 with this `Retry-After` (seconds or an HTTP date). */
  unavailable: { requests: number; retryAfter: string } | null;
  /**
   * Every v1 list (`/calls`, `/sms`, `/numbers`) answers only this share of its records, spread
   * evenly by position (1/3: every third), with `total` and `has_more` agreeing: an outage that
   * looks exactly like deletions. `truth()` is unchanged; 1 lists everything.
   */
  listShare: number;
  /**
   * The next `pages` answers of v1 `/calls` (any paging mode) hold only `records` records, with
   * `has_more`, `next_cursor` and `total` agreeing with them: answers cut short once, not a cap
   * (page numbers still count pages of the size asked). It counts down in `hostile`.
   */
  shortPages: { pages: number; records: number } | null;
  /**
   * Every `next_cursor` of v1 `/calls` is padded to this many bytes (2 MiB: 2097152). Sent back,
   * it makes the request larger than Node's header limit, so the server answers 431.
   */
  hugeCursorBytes: number;
}

/**
 * v1 calls that a sink may fail to store (issue 11), each on its own call at consecutive
 * ascending indexes from `firstIndex`, in this order, only the switched-on ones taking a slot.
 */
export interface HostileRecords {
  /** Depth of a `custom_data` field of nested arrays (6000 overflows `JSON.stringify`). 0 = off. */
  deepNesting: number;
  /** A `transcription_text` with a lone surrogate (`\ud800` in the JSON text). */
  loneSurrogate: boolean;
  /** A `transcription_text` of this many bytes. 0 = off. */
  oversizedFieldBytes: number;
  /** Ascending index (0 = oldest call) of the first hostile call. @defaultValue 10 */
  firstIndex: number;
}

/** A fixed-window rate limit: `limit` requests per window of `windowMs`, windows aligned to the epoch. */
export interface RateLimitOptions {
  limit: number;
  windowMs: number;
}

/**
 * What `to_number` (`call_to_number`) holds on an outbound call; the specification calls it "the
 * tracked service number" and is silent on outbound calls, so both readings are played:
 * `customer` (the call goes from the tracked number to the customer) and `tracked` (the tracked
 * number on every call; `from_number` is then the customer's).
 */
export type OutboundToNumber = 'customer' | 'tracked';

export interface SimulatorOptions {
  /** @defaultValue '127.0.0.1' */
  host?: string;
  /** 0 picks an ephemeral port. @defaultValue 0 */
  port?: number;
  /** Seed of all generated data. @defaultValue 1 */
  seed?: number;
  /**
   * Epoch ms of the requests' "now" (rate-limit windows, cursor age, key use, new arrivals), so a
   * test steps time instead of sleeping through it. @defaultValue Date.now
   */
  clock?: () => number;
  /** Number of businesses, named `biz-1`, `biz-2`, … @defaultValue 3 */
  businesses?: number;
  /** Calls per business at start. @defaultValue 1000 */
  calls?: number;
  /** Voicemails per business at start. @defaultValue 100 */
  voicemails?: number;
  /** Tracked numbers per business. @defaultValue 5 */
  numbers?: number;
  /** @defaultValue { limit: 60, windowMs: 60000 } */
  rateLimit?: RateLimitOptions | false;
  /** Cursors older than this are rejected with 400 (expired). @defaultValue undefined (never expire) */
  cursorTtlMs?: number;
  /**
   * The specification is silent on whether a cursor names a position or one answer: `fresh`
   * mints a new cursor each answer (it carries its issue time, so `cursorTtlMs` can expire it);
   * `stable` gives a position the same cursor every time (it never expires). @defaultValue 'fresh'
   */
  cursors?: 'fresh' | 'stable';
  /** Live arrival rates per business. @defaultValue none */
  arrival?: { callsPerSecond?: number; voicemailsPerSecond?: number };
  /**
   * Send a signed webhook for each new call or voicemail, late transcription and deletion, with
   * configurable delays, copies, reordering and drops. @defaultValue none
   */
  webhooks?: WebhookSenderOptions;
  faults?: Partial<Faults>;
  /** v1 paths (below `/api/v1`) answered without the `data` wrapper. @defaultValue ['/sms'] */
  legacyEnvelope?: string[];
  /** What `to_number` holds on outbound calls (v1 and v2): {@link OutboundToNumber}. @defaultValue 'customer' */
  outboundToNumber?: OutboundToNumber;
  /** Fraction (0..1) of v2 phone fields rendered as bare JSON numbers. @defaultValue 0 */
  v2NumbersAsNumbers?: number;
  /** Emit `next_cursor` on the last cursor page too, so a client can resume later. @defaultValue true */
  cursorOnLastPage?: boolean;
  /**
   * What v2 relative recording paths are relative to, and so the prefix of v1 `recording_url`.
   * @defaultValue the simulator's own media path, `${baseUrl}/media` (`${recordingsHostUrl}/media` with `recordingsOnOwnPort`)
   */
  recordingsBaseUrl?: string;
  /** Serve the media links from the second port (its own host) instead of the API's. @defaultValue false */
  recordingsOnOwnPort?: boolean;
  /** Port of the second server: the provider host, and the foreign host under another name. @defaultValue 0 (ephemeral) */
  recordingsPort?: number;
  /**
   * Prefix of `voicemail_api_recording_url` (the telephony provider's link):
   * `${providerBaseUrl}/2010-04-01/Accounts/<account>/Recordings/<recording id>.wav`. @defaultValue recordingsHostUrl
   */
  providerBaseUrl?: string;
  /** The recordings host's behaviour; change it live with `setRecordings`. @defaultValue sizes 4–64 KiB, no expiry, no budget, no faults */
  recordings?: Partial<Recordings>;
  /**
   * Order of the v1 lists `/calls` and `/sms` (the spec does not say): `newest` serves the newest
   * first in every paging mode, so arrivals appear at offset 0. @defaultValue 'oldest'
   */
  v1Order?: 'oldest' | 'newest';
  /**
   * The v2 server silently returns at most this many records whatever `limit` asks (no error,
   * no hint). @defaultValue undefined (no cap below the 1000 maximum)
   */
  v2LimitCap?: number;
  /**
   * The 17th-oldest record of each v2 list (index 16) is served with the uuid of its predecessor
   * plus `.0000000001` (`100000016.0000000001`), which parses to the same double. Its truth id is
   * that text. @defaultValue false
   */
  v2FractionalUuid?: boolean;
  /**
   * v1 lists silently serve at most this many records per page whatever `limit`/`per_page` asks
   * (page mode counts pages of the capped size; `per_page` echoes it). @defaultValue undefined
   */
  v1LimitCap?: number;
  /** Paging that breaks the contract (`/calls`); change it live with `setBrokenPaging`. @defaultValue all off */
  brokenPaging?: Partial<BrokenPaging>;
  /** Hostile bounds; change them live with `setHostile`. @defaultValue all off */
  hostile?: Partial<Hostile>;
  /** Calls hostile to the sink in every business's history. @defaultValue none */
  hostileRecords?: Partial<HostileRecords>;
}

/** When added records say they were created. */
interface AddRecordsOptions {
  /** Their `created_at`; a future date models a clock-skewed upstream. @defaultValue now */
  createdAt?: Date;
}

/** Credentials of one simulated business. */
export interface SimBusiness {
  name: string;
  /** The initial v1 API key (deterministic from the seed). */
  apiKey: string;
  /** The v2 bearer token. */
  v2Token: string;
  /** Owner login for the session interface. */
  email: string;
  password: string;
  /** Viewer login: may read, may not manage keys. */
  viewerEmail: string;
  viewerPassword: string;
}

/** One fixed rate window of one business. */
export interface RateWindow {
  startMs: number;
  /** Requests that hit the bucket in this window, admitted or refused. */
  count: number;
  /** Requests admitted (not answered 429). */
  admitted: number;
}

export interface BusinessCounters {
  apiKeyRequests: number;
  sessionRequests: number;
  v2Requests: number;
  /** 429 responses sent (budget and storm). */
  rateLimited: number;
  /** Windows in order of first request; at most the last 10,000. */
  windows: RateWindow[];
  /** The largest `count` of any window. */
  maxWindowCount: number;
}

export interface FaultCounters {
  errors: number;
  slow: number;
  truncated: number;
  resets: number;
  expiredCursors: number;
  storm429: number;
  /** 200 responses sent with a non-JSON body (`badJsonRate`). */
  badJson: number;
  /** 503s sent by `hostile.unavailable`. */
  unavailable: number;
  /** Huge bodies started (`hostile.hugeBodyBytes`). */
  hugeBodies: number;
  /** Bytes of huge bodies handed to sockets: far below the size when clients hang up early. */
  hugeBodyBytesWritten: number;
  /** Responses whose body trickled (`hostile.trickleMs`). */
  trickled: number;
  /** Error responses that echoed the credential (`hostile.echoCredentials`). */
  echoedCredentials: number;
}

export interface SimulatorCounters {
  businesses: Record<string, BusinessCounters>;
  /** Responses by HTTP status (resets have none). */
  byStatus: Record<string, number>;
  /** Requests refused for a missing or unknown credential. */
  unauthenticated: number;
  faults: FaultCounters;
  recordings: RecordingCounters;
}

/** One record as served plus its expected normalized (v1-form) fields. */
export interface TruthRecord {
  id: string;
  /** Exactly the JSON object the API serves for this record. */
  raw: unknown;
  expected: Record<string, string | number | null>;
}

export interface Truth {
  calls: TruthRecord[];
  /** The same calls as served by v2 `/api/all/calls` (id = decimal v2 uuid). */
  v2Calls: TruthRecord[];
  voicemails: TruthRecord[];
  numbers: TruthRecord[];
  sms: TruthRecord[];
}

export interface Simulator {
  /** v1 lives at `${baseUrl}/api/v1/`. */
  baseUrl: string;
  /** v2 lives at `${v2BaseUrl}/api/all/voicemails` and `/api/all/calls`. */
  v2BaseUrl: string;
  /** Prefix of v1 `recording_url` (and of v2 relative paths): the media host, served unless given otherwise. */
  recordingsBaseUrl: string;
  /** The second server (`http://<host>:<recordingsPort>`): the provider host of `voicemail_api_recording_url`. */
  recordingsHostUrl: string;
  /** The same second server under another name (`localhost` for 127.0.0.1): a host a client should refuse. */
  foreignHostUrl: string;
  businesses: SimBusiness[];
  /**
   * New calls arrive now (newest). With `createdAt` they still take the newest slots (lists and
   * ids keep arrival order) but are served with that `created_at`: later arrivals come after them.
   */
  addCalls(business: string, count: number, options?: AddRecordsOptions): void;
  /** New voicemails, created now unless `createdAt` says otherwise (v2 serves them by created_at). */
  addVoicemails(business: string, count: number, options?: AddRecordsOptions): void;
  /** Upstream deletes these calls: gone from every list (v1 and v2), `total` and the truth. Unknown ids throw. */
  deleteCalls(business: string, ids: readonly string[]): void;
  /** New calls, one per switched-on hostile record (`firstIndex` ignored), created now; returns their ids. */
  addHostileCalls(business: string, records: Partial<HostileRecords>): string[];
  /** Upstream deletes these voicemails (uuids as in the truth). Unknown uuids throw. */
  deleteVoicemails(business: string, uuids: readonly string[]): void;
  /** Serves `raw` as the newest v2 voicemail exactly as given (a contract-breaking record); not in the truth. */
  addRawVoicemail(business: string, raw: unknown): void;
  /** A late transcription: same id, `updated_at` bumps to now. */
  updateCallTranscription(business: string, callId: string, text: string): void;
  setFaults(faults: Partial<Faults>): void;
  /** Switches broken-paging behaviours on or off from the next request (a server that gets fixed). */
  setBrokenPaging(broken: Partial<BrokenPaging>): void;
  /** Switches hostile behaviours on or off from the next request. */
  setHostile(hostile: Partial<Hostile>): void;
  setRateLimit(limit: RateLimitOptions | false): void;
  /** Changes the recordings host from the next request; setting `faults` restarts their attempt counts. */
  setRecordings(recordings: Partial<Recordings>): void;
  /**
   * The recording behind a link (a `recording_url`, an `api_recording_url`, or a bare recording id),
   * hashed whole on each call; undefined when it never existed.
   */
  recording(link: string): RecordingTruth | undefined;
  /** The recording alone goes (retention): its links answer 404 while the record stays. Unknown links throw. */
  deleteRecordings(links: readonly string[]): void;
  /** Revokes `apiKey`, by default the business's initial key; takes effect on the next request. */
  revokeKey(business: string, apiKey?: string): void;
  counters(): SimulatorCounters;
  resetCounters(): void;
  /**
   * Switches the webhook sender on, or changes its settings, from the next delivery (e.g. once
   * the receiver has a port). A first call needs `url` and `secret`.
   */
  setWebhooks(options: Partial<WebhookSenderOptions>): void;
  /** What the webhook sender did (all zero without `webhooks`); `resetCounters()` zeroes these too. */
  webhookCounters(): WebhookCounters;
  /** Resolves when every webhook planned so far has been answered (at once without `webhooks`). */
  webhooksSettled(): Promise<void>;
  truth(business: string): Truth;
  close(): Promise<void>;
}
