import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { isObject, type Reply } from '../json-service.js';
import { errorReply } from './errors.js';
import { CONTACT_DEFAULT_PROPERTIES, objectView, requestedProperties, type FakeObject, type FakeStore } from './store.js';

interface Filter {
  readonly propertyName: string;
  readonly operator: string;
  readonly value?: unknown;
  /** `values`, lower-cased, for IN / NOT_IN. */
  readonly set: ReadonlySet<string>;
}

/**
 * What HubSpot's calculated searchable phone properties hold. HubSpot documents the properties
 * (`hs_searchable_calculated_phone_number`, `…_mobile_number`) but not their exact form:
 * `national` (digits without the country code, the reading most integrations report) or
 * `international` (country code and digits). Either way HubSpot computes them from what a
 * person typed in `phone` / `mobilephone`, whatever the formatting.
 */
export type SearchablePhoneReading = 'national' | 'international';

/** HubSpot's search bounds as its search guide states them (the stricter of the published readings). */
export const SEARCH_BOUNDS = { filterGroups: 5, filtersPerGroup: 6, filters: 18, inValues: 100, limit: 200 } as const;

const CALCULATED: Readonly<Record<string, string>> = {
  hs_searchable_calculated_phone_number: 'phone',
  hs_searchable_calculated_mobile_number: 'mobilephone',
};

/**
 * `POST /crm/v3/objects/contacts/search`: filter groups OR-ed, filters in a group AND-ed, within
 * {@link SEARCH_BOUNDS}; `IN` takes `values`; `sorts` (strings or `{ propertyName, direction }`),
 * `limit` and `after` page the answer; only the asked-for properties come back.
 */
export function searchContacts(store: FakeStore, body: unknown, reading: SearchablePhoneReading): Reply {
  const request = isObject(body) ? body : {};
  const groups = Array.isArray(request.filterGroups) ? (request.filterGroups as unknown[]) : [];
  if (groups.length > SEARCH_BOUNDS.filterGroups) return invalid(`too many filterGroups: ${groups.length} (max ${SEARCH_BOUNDS.filterGroups})`);
  const parsed: Filter[][] = [];
  for (const group of groups) {
    const filters = isObject(group) && Array.isArray(group.filters) ? (group.filters as unknown[]) : undefined;
    if (filters === undefined || filters.length === 0 || filters.length > SEARCH_BOUNDS.filtersPerGroup) {
      return invalid(`each filter group needs 1 to ${SEARCH_BOUNDS.filtersPerGroup} filters`);
    }
    const problem = filters.map(filterProblem).find((text) => text !== undefined);
    if (problem !== undefined) return invalid(problem);
    parsed.push(
      (filters as Record<string, unknown>[]).map((filter) => ({
        propertyName: String(filter.propertyName),
        operator: String(filter.operator),
        value: filter.value,
        set: new Set(Array.isArray(filter.values) ? filter.values.map((entry) => String(entry).toLowerCase()) : []),
      })),
    );
  }
  const total = parsed.reduce((sum, group) => sum + group.length, 0);
  if (total > SEARCH_BOUNDS.filters) return invalid(`too many filters: ${total} (max ${SEARCH_BOUNDS.filters})`);
  const limit = typeof request.limit === 'number' ? request.limit : 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_BOUNDS.limit) return invalid(`limit must be 1 to ${SEARCH_BOUNDS.limit}`);
  const after = request.after === undefined ? 0 : Number(request.after);
  if (!Number.isInteger(after) || after < 0) return invalid('after must be a paging token from a previous answer');
  const sort = sortOf(request.sorts);
  if (sort === null) return invalid('sorts must be property names or { propertyName, direction }');

  const matches = [...store.contacts.values()].filter(
    (contact) => parsed.length === 0 || parsed.some((group) => group.every((filter) => matchesFilter(contact, filter, reading))),
  );
  if (sort !== undefined) matches.sort((a, b) => sort.direction * compare(valueOf(a, sort.propertyName, reading), valueOf(b, sort.propertyName, reading)));
  const page = matches.slice(after, after + limit);
  const requested = requestedProperties(request.properties);
  const results = page.map((contact) => withCalculated(objectView(contact, requested, CONTACT_DEFAULT_PROPERTIES), contact, requested, reading));
  const next = after + limit < matches.length ? { paging: { next: { after: String(after + limit) } } } : {};
  return { status: 200, body: { total: matches.length, results, ...next } };
}

/** `POST /crm/v3/objects/contacts`: creates a contact. */
export function createContact(store: FakeStore, body: unknown): Reply {
  const properties = isObject(body) && isObject(body.properties) ? body.properties : undefined;
  if (properties === undefined) return errorReply(400, 'VALIDATION_ERROR', 'properties is required');
  const contact = store.createContact(Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, String(value)])));
  return { status: 201, body: objectView(contact, Object.keys(contact.properties), CONTACT_DEFAULT_PROPERTIES) };
}

const calculated = new Map<string, string | undefined>();

/** The calculated searchable number of a typed phone, as HubSpot would store it (memoised: HubSpot stores it once). */
export function searchableNumber(typed: string | undefined, reading: SearchablePhoneReading): string | undefined {
  if (typed === undefined || typed.trim() === '') return undefined;
  const key = `${reading}\u0000${typed}`;
  if (!calculated.has(key)) calculated.set(key, calculate(typed, reading));
  return calculated.get(key);
}

function calculate(typed: string, reading: SearchablePhoneReading): string | undefined {
  const number = parsePhoneNumberFromString(typed, 'US');
  if (number === undefined) return typed.replace(/\D/g, '') || undefined;
  return reading === 'national' ? number.nationalNumber : `${number.countryCallingCode}${number.nationalNumber}`;
}

function filterProblem(filter: unknown): string | undefined {
  if (!isObject(filter) || typeof filter.propertyName !== 'string' || typeof filter.operator !== 'string') return 'each filter needs propertyName and operator';
  if (filter.operator === 'IN' || filter.operator === 'NOT_IN') {
    if (!Array.isArray(filter.values) || filter.values.length === 0) return `${filter.operator} needs a non-empty values array`;
    if (filter.values.length > SEARCH_BOUNDS.inValues) return `${filter.operator} takes at most ${SEARCH_BOUNDS.inValues} values; got ${filter.values.length}`;
  }
  return undefined;
}

function valueOf(contact: FakeObject, name: string, reading: SearchablePhoneReading): string | undefined {
  if (name === 'hs_object_id') return contact.id;
  const source = CALCULATED[name];
  return source === undefined ? contact.properties[name] : searchableNumber(contact.properties[source], reading);
}

function matchesFilter(contact: FakeObject, filter: Filter, reading: SearchablePhoneReading): boolean {
  const value = valueOf(contact, filter.propertyName, reading)?.toLowerCase();
  switch (filter.operator) {
    case 'EQ':
      return value !== undefined && value === String(filter.value).toLowerCase();
    case 'NEQ':
      return value === undefined || value !== String(filter.value).toLowerCase();
    case 'IN':
      return value !== undefined && filter.set.has(value);
    case 'NOT_IN':
      return value === undefined || !filter.set.has(value);
    case 'HAS_PROPERTY':
      return value !== undefined && value !== '';
    case 'NOT_HAS_PROPERTY':
      return value === undefined || value === '';
    default:
      return false;
  }
}

function sortOf(sorts: unknown): { propertyName: string; direction: 1 | -1 } | undefined | null {
  if (sorts === undefined || (Array.isArray(sorts) && sorts.length === 0)) return undefined;
  if (!Array.isArray(sorts)) return null;
  const first: unknown = sorts[0];
  if (typeof first === 'string') return { propertyName: first.replace(/^-/, ''), direction: first.startsWith('-') ? -1 : 1 };
  if (isObject(first) && typeof first.propertyName === 'string')
    return { propertyName: first.propertyName, direction: first.direction === 'DESCENDING' ? -1 : 1 };
  return null;
}

function compare(a: string | undefined, b: string | undefined): number {
  if (a !== undefined && b !== undefined && /^\d+$/.test(a) && /^\d+$/.test(b)) return Number(a) - Number(b);
  return (a ?? '').localeCompare(b ?? '');
}

function withCalculated(
  view: Record<string, unknown>,
  contact: FakeObject,
  requested: readonly string[] | undefined,
  reading: SearchablePhoneReading,
): Record<string, unknown> {
  const properties = { ...(view.properties as Record<string, unknown>) };
  for (const name of requested ?? []) if (name in CALCULATED) properties[name] = valueOf(contact, name, reading) ?? null;
  return { ...view, properties };
}

function invalid(detail: string): Reply {
  return errorReply(400, 'VALIDATION_ERROR', `There was a problem with the request: ${detail}`);
}
