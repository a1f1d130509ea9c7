import type { Logger } from 'pino';
import type { Clock } from './rolling-window.js';
import type { HubSpotHttp } from './http-client.js';

/** How long "no contact has this number" is believed before HubSpot is searched again. */
export const NEGATIVE_CACHE_MS = 10 * 60_000;

export interface ContactResolverOptions {
  readonly http: HubSpotHttp;
  readonly createContacts: boolean;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Finds the contact whose `phone` or `mobilephone` equals a number (one search: two filter
 * groups, OR-ed), optionally creating one. Answers are cached per number for the life of the
 * process (found ids for good, misses for {@link NEGATIVE_CACHE_MS}); concurrent lookups of one
 * number share one request.
 */
export class ContactResolver {
  readonly #options: ContactResolverOptions;
  readonly #found = new Map<string, Promise<string | null>>();
  readonly #missedAt = new Map<string, number>();

  constructor(options: ContactResolverOptions) {
    this.#options = options;
  }

  resolve(number: string): Promise<string | null> {
    const missedAt = this.#missedAt.get(number);
    if (missedAt !== undefined && this.#options.clock.now() - missedAt >= NEGATIVE_CACHE_MS) {
      this.#missedAt.delete(number);
      this.#found.delete(number);
    }
    let pending = this.#found.get(number);
    if (pending === undefined) {
      pending = this.#lookUp(number);
      this.#found.set(number, pending);
      // A failed search is not an answer: the next call searches again.
      pending.then(
        (id) => void (id === null && this.#missedAt.set(number, this.#options.clock.now())),
        () => void this.#found.delete(number),
      );
    }
    return pending;
  }

  async #lookUp(number: string): Promise<string | null> {
    const { http, createContacts, logger } = this.#options;
    const filterGroups = ['phone', 'mobilephone'].map((propertyName) => ({ filters: [{ propertyName, operator: 'EQ', value: number }] }));
    const { body } = await http.send('POST', '/crm/v3/objects/contacts/search', { filterGroups, properties: ['phone', 'mobilephone'], limit: 1 }, 'search');
    const id = firstId(body);
    if (id !== null || !createContacts) return id;
    const created = await http.send('POST', '/crm/v3/objects/contacts', { properties: { phone: number } });
    const createdId = idOf(created.body);
    logger.debug({ contactId: createdId }, 'hubspot contact created for a caller');
    return createdId;
  }
}

function firstId(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const results = (body as { results?: unknown }).results;
  return Array.isArray(results) && results.length > 0 ? idOf(results[0]) : null;
}

function idOf(object: unknown): string | null {
  if (typeof object !== 'object' || object === null) return null;
  const id = (object as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}
