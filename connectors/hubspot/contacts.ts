import type { Logger } from 'pino';
import { NumberCache } from '../crm/number-cache.js';
import { batchParts, idOf, propertyOf } from './batch-answer.js';
import type { HubSpotHttp } from './client.js';
import { phoneForms, typedPhoneMatches, type PhoneForms } from './phone-match.js';
import type { Clock } from './budget.js';

/** Caller numbers per contact search: HubSpot's `IN` takes at most 100 values. */
const NUMBERS_PER_SEARCH = 100;
/** Results per search page (HubSpot's maximum `limit`). */
const PAGE_SIZE = 200;

/** HubSpot's calculated, format-free copies of `phone` and `mobilephone`, which search can match exactly. */
const SEARCHABLE = { phone: 'hs_searchable_calculated_phone_number', mobile: 'hs_searchable_calculated_mobile_number' } as const;
const RETURNED = ['phone', 'mobilephone', SEARCHABLE.phone, SEARCHABLE.mobile];

interface ContactResolverOptions {
  readonly http: HubSpotHttp;
  readonly createContacts: boolean;
  readonly clock: Clock;
  readonly logger: Logger;
  /** @defaultValue 50,000 (`MAX_CACHED_NUMBERS` of connectors/crm/number-cache.ts) */
  readonly maxCached?: number;
}

/**
 * Finds the contact of each caller number, in batches: one search per up to 100 distinct
 * numbers not yet known, matching HubSpot's calculated searchable phone and mobile numbers in
 * both forms HubSpot may keep (national digits, country code and digits); each answer is then
 * checked against what the person typed ({@link typedPhoneMatches}), and the lowest contact id
 * wins when several match. Answers are cached for the life of the sink (found ids for good,
 * misses for ten minutes; at most `maxCached` numbers, oldest out: the CRM {@link NumberCache}); a failed search is no answer: it throws, and the next
 * lookup searches again. With `createContacts`, a number without a contact gets one.
 */
export class ContactResolver {
  readonly #options: ContactResolverOptions;
  readonly #cache: NumberCache;

  constructor(options: ContactResolverOptions) {
    this.#options = options;
    this.#cache = new NumberCache({
      lookUp: (numbers) => this.#lookUp(numbers),
      clock: options.clock,
      perLookup: NUMBERS_PER_SEARCH,
      ...(options.maxCached === undefined ? {} : { maxCached: options.maxCached }),
    });
  }

  /** The contact id (or null) of every number; concurrent lookups of one number share one search. */
  resolveAll(numbers: Iterable<string>): Promise<Map<string, string | null>> {
    return this.#cache.resolveAll(numbers);
  }

  /** Drops what is known about a number (its contact may be gone): the next lookup searches. */
  forget(number: string): void {
    this.#cache.forget(number);
  }

  async #lookUp(numbers: readonly string[]): Promise<Map<string, string | null>> {
    const forms = new Map<string, PhoneForms>();
    for (const number of numbers) {
      const form = phoneForms(number);
      if (form !== null) forms.set(number, form);
    }
    const contacts = forms.size === 0 ? [] : await this.#search([...forms.values()]);
    const found = new Map<string, string | null>();
    for (const number of numbers) {
      const form = forms.get(number);
      const match = form === undefined ? undefined : contacts.find((contact) => contactHas(contact, form));
      found.set(number, match === undefined ? null : match.id);
    }
    if (this.#options.createContacts) {
      for (const [number, id] of found) if (id === null && forms.has(number)) found.set(number, await this.#create(number));
    }
    return found;
  }

  /** Every contact whose searchable phone or mobile number is one of the forms, lowest id first. */
  async #search(forms: readonly PhoneForms[]): Promise<{ id: string; result: unknown }[]> {
    const national = [...new Set(forms.map((form) => form.national))];
    const international = [...new Set(forms.map((form) => form.international))];
    const filterGroups = [SEARCHABLE.phone, SEARCHABLE.mobile].flatMap((propertyName) => [
      { filters: [{ propertyName, operator: 'IN', values: national }] },
      { filters: [{ propertyName, operator: 'IN', values: international }] },
    ]);
    const contacts: { id: string; result: unknown }[] = [];
    let after: string | undefined = '0';
    while (after !== undefined) {
      const request = { filterGroups, properties: RETURNED, sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }], limit: PAGE_SIZE, after };
      const { body } = await this.#options.http.send('POST', '/crm/v3/objects/contacts/search', request, 'search');
      for (const result of batchParts(body).results) {
        const id = idOf(result);
        if (id !== null) contacts.push({ id, result });
      }
      after = nextAfter(body);
    }
    return contacts.sort((a, b) => a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async #create(number: string): Promise<string | null> {
    const created = await this.#options.http.send('POST', '/crm/v3/objects/contacts', { properties: { phone: number }, associations: [] });
    const id = idOf(created.body);
    this.#options.logger.debug({ contactId: id }, 'hubspot contact created for a caller');
    return id;
  }
}

function contactHas(contact: { result: unknown }, form: PhoneForms): boolean {
  const calculated = [SEARCHABLE.phone, SEARCHABLE.mobile].map((name) => propertyOf(contact.result, name));
  if (calculated.some((value) => value === form.national || value === form.international)) return true;
  return ['phone', 'mobilephone'].some((name) => typedPhoneMatches(propertyOf(contact.result, name), form));
}

function nextAfter(body: unknown): string | undefined {
  const paging = typeof body === 'object' && body !== null ? (body as { paging?: { next?: { after?: unknown } } }).paging : undefined;
  const after = paging?.next?.after;
  return typeof after === 'string' && after !== '' ? after : undefined;
}
