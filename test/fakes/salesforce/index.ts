import { FakeAuth } from './auth.js';
import { createRecords, createSingle, deleteRecords, upsertTasks, type CollectionContext, type DuplicateExternalIdReading } from './collections.js';
import { FakeAllocation } from './limits.js';
import { FakeQueries } from './query.js';
import { isObject, NOT_JSON, serveJson, type Reply } from '../json-service.js';
import { apiError } from './reply.js';
import { DEFAULT_CUSTOM_TASK_FIELDS, FakeOrgStore, type FakeField, type FieldValue } from './store.js';

export type { FakeField, FieldValue } from './store.js';
export type { DuplicateExternalIdReading } from './collections.js';

/** A Salesforce org imitation; README.md lists the documentation each behaviour comes from. */
export interface FakeSalesforceOptions {
  readonly consumerKey?: string;
  readonly username?: string;
  /** PEM certificate or public key of the connected app (JWT bearer flow). */
  readonly certificate?: string;
  /** Enables the client credentials flow with this secret. */
  readonly clientSecret?: string;
  /** @defaultValue 2 hours (Salesforce's default session timeout) */
  readonly sessionMs?: number;
  /** Requests per window. @defaultValue 100000 */
  readonly dailyAllocation?: number;
  /** Requests other integrations used just before the fake started; they age out with the window. @defaultValue 0 */
  readonly initialUsage?: number;
  /** The allocation's rolling window. @defaultValue 24 hours */
  readonly allocationWindowMs?: number;
  /** How long a written record stays invisible to SOSL. @defaultValue 0 */
  readonly indexLagMs?: number;
  /** Records per query batch before `nextRecordsUrl`. @defaultValue 2000 */
  readonly queryBatchSize?: number;
  /** Custom Task fields; the default set is the README's setup. */
  readonly customTaskFields?: readonly FakeField[];
  /** Phone fields of Contact and Lead that SOSL's PHONE FIELDS covers. @defaultValue Phone, MobilePhone */
  readonly phoneFields?: readonly string[];
  readonly contacts?: readonly Record<string, FieldValue>[];
  readonly leads?: readonly Record<string, FieldValue>[];
  readonly readings?: Partial<FakeReadings>;
}

/** Where Salesforce's documents allow two readings; the fake plays either. */
export interface FakeReadings {
  /** Token answers with `expires_in` (not documented) or without (documented). @defaultValue false */
  readonly expiresIn: boolean;
  /** @defaultValue 'record-error' */
  readonly duplicateExternalId: DuplicateExternalIdReading;
  /** SOQL `LIKE '%…'` refused with QUERY_TIMEOUT, as a large org may. @defaultValue false */
  readonly refuseLeadingWildcard: boolean;
}

export interface LoggedRequest {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** Whether the request counted against the allocation. */
  readonly counted: boolean;
  /** When it arrived, epoch ms. */
  readonly at: number;
}

export interface FakeTask {
  readonly Id: string;
  readonly fields: Readonly<Record<string, FieldValue>>;
  /** Times an update changed it since it was created. */
  readonly updates: number;
}

export interface FakeSalesforce {
  /** Login URL and instance URL: one server plays both. */
  readonly baseUrl: string;
  readonly consumerKey: string;
  readonly username: string;
  readonly version: string;
  tasks(): FakeTask[];
  /** Tasks in the recycle bin. */
  deletedTasks(): FakeTask[];
  contacts(): FakeTask[];
  leads(): FakeTask[];
  /** Adds a Contact or Lead now (as a person would in the app). */
  add(type: 'Contact' | 'Lead', fields: Record<string, FieldValue>): string;
  /** The next `count` Task records upserted fail with `UNABLE_TO_LOCK_ROW`. */
  lockRows(count: number): void;
  /** Every issued session times out now. */
  expireSessions(): void;
  /** Requests counted against the allocation in the current window. */
  usage(): number;
  /** Requests refused with REQUEST_LIMIT_EXCEEDED. */
  refusedForAllocation(): number;
  tokensIssued(): Readonly<Record<string, number>>;
  requests(): LoggedRequest[];
  close(): Promise<void>;
}

const VERSION = 'v62.0';
const DATA_PREFIX = '/services/data/';

export async function startFakeSalesforce(options: FakeSalesforceOptions = {}): Promise<FakeSalesforce> {
  const readings: FakeReadings = { expiresIn: false, duplicateExternalId: 'record-error', refuseLeadingWildcard: false, ...options.readings };
  const consumerKey = options.consumerKey ?? '3MVG9FAKECONSUMERKEY';
  const username = options.username ?? 'integration@callsync.example';
  const phoneFields = options.phoneFields ?? ['Phone', 'MobilePhone'];
  const store = new FakeOrgStore(options.customTaskFields ?? DEFAULT_CUSTOM_TASK_FIELDS, options.indexLagMs ?? 0);
  const allocation = new FakeAllocation(options.dailyAllocation ?? 100_000, options.allocationWindowMs ?? 24 * 3_600_000);
  for (let used = 0; used < (options.initialUsage ?? 0); used++) allocation.take(Date.now());
  const queries = new FakeQueries(store, options.queryBatchSize ?? 2000, phoneFields, readings.refuseLeadingWildcard);
  let baseUrl = '';
  const auth = new FakeAuth(
    {
      consumerKey,
      username,
      sessionMs: options.sessionMs ?? 2 * 3_600_000,
      expiresIn: readings.expiresIn,
      ...(options.certificate === undefined ? {} : { certificate: options.certificate }),
      ...(options.clientSecret === undefined ? {} : { clientSecret: options.clientSecret }),
    },
    // The fake's own URL stands for the org's My Domain / site login URL, which the flow also accepts as `aud`.
    () => ['https://login.salesforce.com', 'https://test.salesforce.com', baseUrl],
    () => baseUrl,
  );
  // Records present from the start have long been indexed.
  const seeded = Date.now() - (options.indexLagMs ?? 0);
  for (const contact of options.contacts ?? []) store.insert('Contact', contact, seeded);
  for (const lead of options.leads ?? []) store.insert('Lead', lead, seeded);
  let locks = 0;
  const log: LoggedRequest[] = [];
  const context = (now: number): CollectionContext => ({
    store,
    now,
    version: VERSION,
    duplicateExternalId: readings.duplicateExternalId,
    lockFault: () => (locks > 0 ? (locks -= 1) >= 0 : false),
  });

  /** One REST resource under `/services/data/vNN.0/`; composite subrequests come here too, uncounted. */
  const resource = (method: string, url: URL, body: unknown, now: number): Reply => {
    const match = /^\/services\/data\/(v\d+\.\d)(\/.*)?$/.exec(url.pathname);
    if (match === null) return apiError(404, 'NOT_FOUND', 'The requested resource does not exist');
    const version = match[1] ?? VERSION;
    const path = match[2] ?? '/';
    const upsert = /^\/composite\/sobjects\/Task\/([^/]+)$/.exec(path);
    if (method === 'PATCH' && upsert !== null) return upsertTasks(context(now), decodeURIComponent(upsert[1] ?? ''), body);
    if (method === 'POST' && path === '/composite/sobjects') return createRecords(context(now), body);
    if (method === 'DELETE' && path === '/composite/sobjects') return deleteRecords(context(now), url);
    if (method === 'POST' && path === '/composite') return composite(body, now);
    const create = /^\/sobjects\/(Lead|Contact|Task)$/.exec(path);
    if (method === 'POST' && create !== null) return createSingle(context(now), create[1] ?? '', body);
    if (method === 'GET' && path === '/sobjects/Task/describe') return queries.describeTask();
    if (method === 'GET' && path === '/query') return queries.query(version, url.searchParams.get('q') ?? '');
    const more = /^\/query\/([^/]+)$/.exec(path);
    if (method === 'GET' && more !== null) return queries.more(version, more[1] ?? '');
    if (method === 'GET' && path === '/search') return queries.search(url.searchParams.get('q') ?? '', now);
    if (method === 'GET' && path === '/limits') {
      return { status: 200, body: { DailyApiRequests: { Max: allocation.max, Remaining: Math.max(0, allocation.max - allocation.usage(now)) } } };
    }
    return apiError(404, 'NOT_FOUND', 'The requested resource does not exist');
  };

  /**
   * `POST /composite` ("Composite"): up to 25 subrequests, at most 5 of them queries or sObject
   * Collections; the whole request counts as one against the allocation.
   */
  const composite = (body: unknown, now: number): Reply => {
    if (!isObject(body) || !Array.isArray(body.compositeRequest)) return apiError(400, 'JSON_PARSER_ERROR', 'Expected { compositeRequest: [...] }');
    const subrequests = body.compositeRequest as unknown[];
    if (subrequests.length > 25) return apiError(400, 'LIMIT_EXCEEDED', 'Composite request can contain at most 25 subrequests');
    const heavy = subrequests.filter((sub) => isObject(sub) && typeof sub.url === 'string' && /\/(query|composite\/sobjects)/.test(sub.url)).length;
    if (heavy > 5) return apiError(400, 'LIMIT_EXCEEDED', 'Composite request can contain at most 5 query or sObject Collections subrequests');
    const compositeResponse = subrequests.map((sub) => {
      if (!isObject(sub) || typeof sub.url !== 'string' || typeof sub.method !== 'string' || typeof sub.referenceId !== 'string') {
        return {
          body: [{ errorCode: 'INVALID_INPUT', message: 'each subrequest needs method, url and referenceId' }],
          httpHeaders: {},
          httpStatusCode: 400,
          referenceId: null,
        };
      }
      const reply = resource(sub.method, new URL(sub.url, 'http://fake'), sub.body, now);
      return { body: reply.body ?? null, httpHeaders: {}, httpStatusCode: reply.status, referenceId: sub.referenceId };
    });
    return { status: 200, body: { compositeResponse } };
  };

  const served = await serveJson('application/json;charset=UTF-8', ({ method, url, headers: requestHeaders, raw, body }) => {
    const now = Date.now();
    let reply: Reply;
    let counted = false;
    const headers: Record<string, string> = {};
    if (url.pathname === '/services/oauth2/token' && method === 'POST') {
      reply = auth.token(new URLSearchParams(raw), now);
    } else if (!url.pathname.startsWith(DATA_PREFIX)) {
      reply = apiError(404, 'NOT_FOUND', 'The requested resource does not exist');
    } else if (!auth.valid(requestHeaders.authorization, now)) {
      reply = apiError(401, 'INVALID_SESSION_ID', 'Session expired or invalid');
      headers['www-authenticate'] = 'Token';
    } else if (!allocation.take(now)) {
      reply = apiError(403, 'REQUEST_LIMIT_EXCEEDED', 'TotalRequests Limit exceeded.');
    } else {
      counted = true;
      reply = body === NOT_JSON ? apiError(400, 'JSON_PARSER_ERROR', 'Unexpected character in the request body') : resource(method, url, body, now);
    }
    if (url.pathname.startsWith(DATA_PREFIX)) headers['sforce-limit-info'] = allocation.header(now);
    log.push({ method, path: url.pathname + url.search, status: reply.status, counted, at: now });
    return { ...reply, headers: { ...headers, ...reply.headers } };
  });
  baseUrl = served.url;
  const view = (type: string, deleted: boolean): FakeTask[] =>
    [...store.records.values()]
      .filter((record) => record.type === type && record.deleted === deleted)
      .map((record) => ({ Id: record.Id, fields: structuredClone(record.fields), updates: record.updates }));
  return {
    baseUrl,
    consumerKey,
    username,
    version: VERSION,
    tasks: () => view('Task', false),
    deletedTasks: () => view('Task', true),
    contacts: () => view('Contact', false),
    leads: () => view('Lead', false),
    add: (type, fields) => store.insert(type, fields, Date.now()).Id,
    lockRows: (count) => void (locks += count),
    expireSessions: () => auth.expireAll(),
    usage: () => allocation.usage(Date.now()),
    refusedForAllocation: () => allocation.refused,
    tokensIssued: () => ({ ...auth.issued }),
    requests: () => [...log],
    close: () => served.close(),
  };
}
