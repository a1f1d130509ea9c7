import type { Logger } from 'pino';
import { chunks } from '../../src/base/chunks.js';
import type { CheckpointStore } from '../../src/sink/sink.js';
import { NumberCache } from '../crm/number-cache.js';
import { phoneForms, typedPhoneMatches, type PhoneForms } from '../hubspot/phone-match.js';
import type { WhoConfig } from './config.js';
import type { SalesforceHttp } from './client.js';
import { MAX_QUERY_URL, runQueries, sendCollections } from './queries.js';

/** Caller numbers per SOQL query at most: a page of 500 calls asks one query per object. */
export const NUMBERS_PER_QUERY = 500;
/**
 * Longest phone query. Salesforce allows SOQL statements of 100,000 characters ("SOQL and SOSL
 * Limits"), but expands a statement internally and may answer `QUERY_TOO_COMPLICATED` below that,
 * so a chunk of numbers stops at half. Such a query does not fit a request URI (16,384 bytes with
 * the headers), so it travels in a composite request's body, as Salesforce advises.
 */
export const MAX_SOQL_CHARS = 50_000;
/** Records per sObject Collections request. */
const COLLECTION_MAX = 200;
/** The state-store "business" under which the Leads callsync created are kept, one entry per number. */
const LEDGER_BUSINESS = '~salesforce-leads';

interface WhoResolverOptions {
  readonly http: SalesforceHttp;
  readonly apiVersion: string;
  readonly who: WhoConfig;
  /** The state store's checkpoints, where each Lead callsync creates is written down before it is used. */
  readonly ledger: CheckpointStore;
  readonly clock: { now(): number };
  readonly logger: Logger;
}

type Found = { readonly id: string; readonly type: string; readonly row: Record<string, unknown> };

/**
 * The Contact or Lead (the `WhoId`) of each caller number. Numbers not known yet are looked up
 * in batches: the Leads callsync created itself (state store), then one SOQL query per object
 * and up to 500 numbers, all queries of a batch in the body of one composite request, each number matched by
 * a LIKE pattern that allows any punctuation between its digits, and each row then checked
 * against what the person typed (the HubSpot connector's typed-phone rule). SOQL reads the
 * database, so a Lead created a minute ago is found; SOSL (`FIND … IN PHONE FIELDS`), whose index
 * lags behind writes, is asked only for a query Salesforce refuses (a non-selective query can
 * time out on a large org). The first object in `who.objects` with a match wins, then the lowest
 * id. With `createLeads`, a number found nowhere gets a Lead, written to the state store at once,
 * so neither this process nor the next creates a second one while the search index catches up.
 * Concurrent lookups of one number share one answer.
 */
export class WhoResolver {
  readonly #options: WhoResolverOptions;
  readonly #cache: NumberCache;

  constructor(options: WhoResolverOptions) {
    this.#options = options;
    this.#cache = new NumberCache({ lookUp: (numbers) => this.#lookUp(numbers), clock: options.clock });
  }

  /** The WhoId (or null) of every number (E.164). */
  resolveAll(numbers: Iterable<string>): Promise<Map<string, string | null>> {
    return this.#cache.resolveAll(numbers);
  }

  /** Drops what is known about a number (its Who may be gone): the next lookup asks Salesforce. */
  forget(number: string): void {
    this.#cache.forget(number);
  }

  async #lookUp(numbers: readonly string[]): Promise<Map<string, string | null>> {
    const found = new Map<string, string | null>();
    const forms = new Map<string, PhoneForms>();
    for (const number of numbers) {
      const form = phoneForms(number);
      if (form === null) found.set(number, null);
      else forms.set(number, form);
    }
    const created = await this.#created([...forms.keys()]);
    for (const [number, id] of created) {
      found.set(number, id);
      forms.delete(number);
    }
    if (forms.size > 0) {
      const rows = await this.#search([...forms.entries()]);
      for (const [number, form] of forms) found.set(number, this.#best(rows, form));
    }
    const unknown = [...forms.keys()].filter((number) => found.get(number) === null);
    if (this.#options.who.createLeads && unknown.length > 0) {
      for (const [number, id] of await this.#createLeads(unknown)) found.set(number, id);
    }
    return found;
  }

  /** Leads callsync created for these numbers, from the state store. */
  async #created(numbers: readonly string[]): Promise<Map<string, string>> {
    const created = new Map<string, string>();
    if (!this.#options.who.createLeads) return created;
    for (const number of numbers) {
      const entry = await this.#options.ledger.load(LEDGER_BUSINESS, `lead:${number}`);
      const id = entry?.position.leadId;
      if (typeof id === 'string') created.set(number, id);
    }
    return created;
  }

  /** Contacts and Leads whose phone fields may hold one of the numbers. */
  async #search(entries: readonly (readonly [string, PhoneForms])[]): Promise<Found[]> {
    const { who, http, apiVersion } = this.#options;
    const groups = phoneChunks(
      entries.map(([, form]) => form),
      who.phoneFields,
    );
    const jobs = groups.flatMap((chunk) => who.objects.map((object) => ({ object, chunk })));
    const outcomes = await runQueries(
      http,
      apiVersion,
      jobs.map(({ object, chunk }) => phoneQuery(object, who.phoneFields, chunk)),
    );
    const rows: Found[] = [];
    const refusedChunks = new Set<PhoneForms[]>();
    for (const [index, outcome] of outcomes.entries()) {
      const job = jobs[index];
      if (job === undefined) continue;
      if ('refused' in outcome) {
        if (!refusedChunks.has(job.chunk))
          this.#options.logger.warn(
            { object: job.object, errorCode: outcome.refused.errorCode },
            'salesforce refused a phone query; searching with SOSL instead (its index may lag behind new records)',
          );
        refusedChunks.add(job.chunk);
        continue;
      }
      for (const row of outcome.rows) if (typeof row.Id === 'string') rows.push({ id: row.Id, type: job.object, row });
    }
    for (const chunk of refusedChunks) rows.push(...(await this.#sosl(chunk)));
    return rows;
  }

  async #sosl(chunk: readonly PhoneForms[]): Promise<Found[]> {
    const { who, http } = this.#options;
    const returning = who.objects.map((object) => `${object}(Id, ${who.phoneFields.join(', ')})`).join(', ');
    const search = (terms: readonly string[]): string =>
      `/search?q=${encodeURIComponent(`FIND {${terms.join(' OR ')}} IN PHONE FIELDS RETURNING ${returning}`)}`;
    const found: Found[] = [];
    // A search goes in the URL, so a long chunk of numbers is split to fit it.
    const terms = [...new Set(chunk.map((form) => form.national))];
    for (const part of sized(terms, (term) => encodeURIComponent(`${term} OR `).length, search([]).length, MAX_QUERY_URL, terms.length)) {
      const { body } = await http.send('GET', search(part));
      const records = (body as { searchRecords?: unknown } | undefined)?.searchRecords;
      if (!Array.isArray(records)) continue;
      for (const row of records as Record<string, unknown>[]) {
        const type = (row.attributes as { type?: unknown } | undefined)?.type;
        if (typeof row.Id === 'string' && typeof type === 'string') found.push({ id: row.Id, type, row });
      }
    }
    return found;
  }

  #best(rows: readonly Found[], form: PhoneForms): string | null {
    const { objects, phoneFields } = this.#options.who;
    for (const object of objects) {
      const ids = rows
        .filter((found) => found.type === object && phoneFields.some((field) => typedPhoneMatches(found.row[field], form)))
        .map((found) => found.id);
      if (ids.length > 0) return ids.sort()[0] ?? null;
    }
    return null;
  }

  async #createLeads(numbers: readonly string[]): Promise<Map<string, string>> {
    const { who, http, apiVersion, ledger, logger } = this.#options;
    const created = new Map<string, string>();
    const parts = chunks(numbers, COLLECTION_MAX);
    const bodies = parts.map((chunk) => ({
      allOrNone: false,
      records: chunk.map((number) => ({ attributes: { type: 'Lead' }, LastName: who.leadLastName, Company: who.leadCompany, Phone: number })),
    }));
    const answers = await sendCollections(http, apiVersion, 'POST', '/composite/sobjects', bodies);
    for (const [which, chunk] of parts.entries()) {
      const answer = answers[which];
      const results = Array.isArray(answer?.body) ? (answer.body as { id?: unknown; success?: unknown; errors?: unknown }[]) : [];
      for (const [index, number] of chunk.entries()) {
        const result = results[index];
        if (result?.success === true && typeof result.id === 'string') {
          await ledger.save({ businessId: LEDGER_BUSINESS, stream: `lead:${number}`, position: { leadId: result.id }, recordsSynced: 0 });
          created.set(number, result.id);
        } else {
          logger.warn(
            { status: answer?.status, errors: result?.errors ?? answer?.body },
            'salesforce refused to create a Lead for a caller; the Task is written without a Who',
          );
        }
      }
    }
    if (created.size > 0) logger.info({ leads: created.size }, 'salesforce Leads created for new callers');
    return created;
  }
}

/** `SELECT Id, <phone fields> FROM <object> WHERE <field> LIKE '%4%1%5…' OR …`: any punctuation between the digits matches. */
export function phoneQuery(object: string, phoneFields: readonly string[], forms: readonly PhoneForms[]): string {
  return `SELECT Id, ${phoneFields.join(', ')} FROM ${object} WHERE ${phoneConditions(phoneFields, forms).join(' OR ')} ORDER BY Id`;
}

function phoneConditions(phoneFields: readonly string[], forms: readonly PhoneForms[]): string[] {
  const patterns = [...new Set(forms.map((form) => `'%${[...form.national].join('%')}%'`))];
  return patterns.flatMap((pattern) => phoneFields.map((field) => `${field} LIKE ${pattern}`));
}

/** The numbers in chunks of at most {@link NUMBERS_PER_QUERY} whose query (for the longest object name) stays within {@link MAX_SOQL_CHARS}. */
export function phoneChunks(forms: readonly PhoneForms[], phoneFields: readonly string[]): PhoneForms[][] {
  const base = phoneQuery('Contact', phoneFields, []).length;
  // What one more number adds: its conditions and their " OR " separators.
  const added = (form: PhoneForms): number => `${phoneConditions(phoneFields, [form]).join(' OR ')} OR `.length;
  return sized(forms, added, base, MAX_SOQL_CHARS, NUMBERS_PER_QUERY);
}

/** Consecutive parts of `items` whose summed `size` (plus `base`) stays within `max`, at most `count` items each. */
function sized<T>(items: readonly T[], size: (item: T) => number, base: number, max: number, count: number): T[][] {
  const parts: T[][] = [];
  let part: T[] = [];
  let length = base;
  for (const item of items) {
    const grows = size(item);
    if (part.length > 0 && (length + grows > max || part.length >= count)) {
      parts.push(part);
      part = [];
      length = base;
    }
    part.push(item);
    length += grows;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}
