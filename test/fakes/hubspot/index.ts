import { randomBytes } from 'node:crypto';
import { associateDefault, type AssociationErrorStatus } from './associations.js';
import { batchArchiveCalls, batchReadCalls } from './batch-archive.js';
import { batchUpdateCalls } from './batch-update.js';
import { batchUpsertCalls, type InvalidInputMode, type UpsertEcho } from './batch-upsert.js';
import { createContact, searchContacts, type SearchablePhoneReading } from './contacts.js';
import { NOT_JSON, serveJson, type Reply } from '../json-service.js';
import { errorReply } from './errors.js';
import { FakeRateLimits, type Exemptions, type Faults, type FakeLimits, type RequestClass } from './limits.js';
import { createCallProperty, readCallProperty } from './properties.js';
import { FakeStore, type ArchivedUniqueValue, type FakeAssociation, type FakeObject, type FakeProperty, type UniqueConflict } from './store.js';

export type { ArchivedUniqueValue, FakeAssociation, FakeObject, FakeProperty, UniqueConflict } from './store.js';
export type { Exemptions, Faults, FakeLimits } from './limits.js';
export type { AssociationErrorStatus } from './associations.js';
export type { UpsertEcho } from './batch-upsert.js';
export type { SearchablePhoneReading } from './contacts.js';
export { SEARCH_BOUNDS, searchableNumber } from './contacts.js';

export interface FakeHubSpotOptions {
  /** The private app token it accepts. @defaultValue a random `pat-na1-…` value */
  readonly token?: string;
  /** Contacts present from the start (their properties). */
  readonly contacts?: readonly Record<string, string>[];
  readonly limits?: Partial<FakeLimits>;
  /** @defaultValue 'multi-status' */
  readonly invalidInputs?: InvalidInputMode;
  /** Readings of what HubSpot's documents leave open; the defaults are the ones a client must survive. */
  readonly readings?: Partial<FakeReadings>;
}

/** Every point where HubSpot's documents allow two readings; the fake plays either. */
export interface FakeReadings {
  /** @defaultValue 'defaults' */
  readonly upsertEcho: UpsertEcho;
  /** @defaultValue 'national' */
  readonly searchablePhone: SearchablePhoneReading;
  /** @defaultValue 200 */
  readonly associationErrorStatus: AssociationErrorStatus;
  /** @defaultValue search and associations both exempt from the 10-s window */
  readonly exemptions: Partial<Exemptions>;
  /** Whether an archived call keeps its unique values (see {@link ArchivedUniqueValue}). @defaultValue 'held' */
  readonly archivedUniqueValue: ArchivedUniqueValue;
}

/** One request as the fake saw it; the Authorization header is never recorded. */
export interface LoggedRequest {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: unknown;
}

export interface FakeHubSpot {
  readonly baseUrl: string;
  readonly token: string;
  calls(): FakeObject[];
  /** Calls in the recycling bin (archived through `batch/archive` or {@link archiveByHand}), in the order archived. */
  archivedCalls(): FakeObject[];
  /** A person deletes a call in HubSpot's app: it goes to the recycling bin as an archive would. */
  archiveByHand(id: string): void;
  /**
   * A person restores a call with HubSpot's restore-records tool (the app only; HubSpot documents
   * no API for it). Answers the unique value that blocks it, if any.
   */
  restoreByHand(id: string): UniqueConflict | undefined;
  contacts(): FakeObject[];
  associations(): FakeAssociation[];
  callProperties(): FakeProperty[];
  setFaults(faults: Faults): void;
  requests(): LoggedRequest[];
  /** 429s sent so far, by HubSpot policy name. */
  refusals(): Record<string, number>;
  close(): Promise<void>;
}

/** A HubSpot CRM imitation on 127.0.0.1 and an ephemeral port, for tests over real HTTP. */
export async function startFakeHubSpot(options: FakeHubSpotOptions = {}): Promise<FakeHubSpot> {
  const token = options.token ?? `pat-na1-${randomBytes(16).toString('hex')}`;
  const readings: FakeReadings = {
    upsertEcho: 'defaults',
    searchablePhone: 'national',
    associationErrorStatus: 200,
    exemptions: {},
    archivedUniqueValue: 'held',
    ...options.readings,
  };
  const store = new FakeStore(options.contacts ?? [], readings.archivedUniqueValue);
  const limits = new FakeRateLimits(options.limits ?? {}, readings.exemptions);
  const log: LoggedRequest[] = [];
  const mode = options.invalidInputs ?? 'multi-status';
  const routes: Routes = { store, mode, readings, failPair: () => limits.takeAssociationFault() };

  const served = await serveJson('application/json;charset=utf-8', ({ method, url, headers, raw, body }) => {
    const parsed = body === NOT_JSON ? undefined : body;
    const kind = requestClass(url.pathname);
    let reply: Reply;
    if (headers.authorization !== `Bearer ${token}`) {
      reply = errorReply(
        401,
        'INVALID_AUTHENTICATION',
        'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
      );
    } else {
      reply = limits.admit(kind) ?? route(routes, method, url, parsed);
      reply = { ...reply, headers: limits.headers(kind) };
    }
    log.push({ method, path: url.pathname + url.search, status: reply.status, body: body === NOT_JSON ? raw : body });
    return reply;
  });
  return {
    baseUrl: served.url,
    token,
    calls: () => [...store.calls.values()].map((call) => structuredClone(call)),
    archivedCalls: () => [...store.archivedCalls.values()].map((call) => structuredClone(call)),
    archiveByHand: (id) => store.archiveCall(id),
    restoreByHand(id) {
      const outcome = store.restoreCall(id);
      if ('notFound' in outcome) throw new Error(`no call ${id} in the recycling bin`);
      return 'conflict' in outcome ? outcome.conflict : undefined;
    },
    contacts: () => [...store.contacts.values()].map((contact) => structuredClone(contact)),
    associations: () => [...store.associations],
    callProperties: () => [...store.callProperties.values()],
    setFaults: (faults) => limits.setFaults(faults),
    requests: () => [...log],
    refusals: () => limits.refusals(),
    close: () => served.close(),
  };
}

interface Routes {
  readonly store: FakeStore;
  readonly mode: InvalidInputMode;
  readonly readings: FakeReadings;
  readonly failPair: () => boolean;
}

function requestClass(path: string): RequestClass {
  if (path.endsWith('/search')) return 'search';
  return path.startsWith('/crm/v4/associations/') ? 'associations' : 'general';
}

function route({ store, mode, readings, failPair }: Routes, method: string, url: URL, body: unknown): Reply {
  const path = url.pathname;
  const property = /^\/crm\/v3\/properties\/calls\/([^/]+)$/.exec(path);
  if (method === 'GET' && property?.[1] !== undefined) return readCallProperty(store, decodeURIComponent(property[1]));
  if (method === 'POST' && path === '/crm/v3/properties/calls') return createCallProperty(store, body);
  if (method === 'POST' && path === '/crm/v3/objects/calls/batch/upsert') return batchUpsertCalls(store, body, mode, readings.upsertEcho);
  if (method === 'POST' && path === '/crm/v3/objects/calls/batch/read') return batchReadCalls(store, body, url.searchParams.get('archived') === 'true');
  if (method === 'POST' && path === '/crm/v3/objects/calls/batch/update') return batchUpdateCalls(store, body);
  if (method === 'POST' && path === '/crm/v3/objects/calls/batch/archive') return batchArchiveCalls(store, body);
  if (method === 'POST' && path === '/crm/v3/objects/contacts/search') return searchContacts(store, body, readings.searchablePhone);
  if (method === 'POST' && path === '/crm/v3/objects/contacts') return createContact(store, body);
  if (method === 'POST' && path === '/crm/v4/associations/calls/contacts/batch/associate/default')
    return associateDefault(store, body, readings.associationErrorStatus, failPair);
  return errorReply(404, 'OBJECT_NOT_FOUND', `No route for ${method} ${path}`);
}
