import { errorReply, isObject, type Reply } from './errors.js';
import type { FakeObject, FakeStore } from './store.js';

interface Filter {
  readonly propertyName: string;
  readonly operator: string;
  readonly value?: unknown;
}

/**
 * `POST /crm/v3/objects/contacts/search`: filter groups are OR-ed, filters within a group
 * AND-ed; at most 5 groups of at most 6 filters, `limit` at most 200 (HubSpot's bounds).
 */
export function searchContacts(store: FakeStore, body: unknown): Reply {
  const request = isObject(body) ? body : {};
  const groups = Array.isArray(request.filterGroups) ? (request.filterGroups as unknown[]) : [];
  if (groups.length > 5) return errorReply(400, 'VALIDATION_ERROR', 'There was a problem with the request: too many filter groups (max 5)');
  const parsed: Filter[][] = [];
  for (const group of groups) {
    const filters = isObject(group) && Array.isArray(group.filters) ? (group.filters as unknown[]) : undefined;
    if (filters === undefined || filters.length > 6 || !filters.every((filter) => isObject(filter) && typeof filter.propertyName === 'string' && typeof filter.operator === 'string')) {
      return errorReply(400, 'VALIDATION_ERROR', 'There was a problem with the request: each filter group needs 1 to 6 filters with propertyName and operator');
    }
    parsed.push(filters as unknown as Filter[]);
  }
  const limit = typeof request.limit === 'number' ? request.limit : 10;
  if (limit > 200) return errorReply(400, 'VALIDATION_ERROR', 'limit must be at most 200');
  const all = [...store.contacts.values()];
  const matches = parsed.length === 0 ? all : all.filter((contact) => parsed.some((group) => group.every((filter) => matches1(contact, filter))));
  return { status: 200, body: { total: matches.length, results: matches.slice(0, limit).map(view) } };
}

/** `POST /crm/v3/objects/contacts`: creates a contact. */
export function createContact(store: FakeStore, body: unknown): Reply {
  const properties = isObject(body) && isObject(body.properties) ? body.properties : undefined;
  if (properties === undefined) return errorReply(400, 'VALIDATION_ERROR', 'properties is required');
  const contact = store.createContact(Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, String(value)])));
  return { status: 201, body: view(contact) };
}

function matches1(contact: FakeObject, filter: Filter): boolean {
  const value = contact.properties[filter.propertyName];
  switch (filter.operator) {
    case 'EQ':
      return value !== undefined && value.toLowerCase() === String(filter.value).toLowerCase();
    case 'NEQ':
      return value === undefined || value.toLowerCase() !== String(filter.value).toLowerCase();
    case 'HAS_PROPERTY':
      return value !== undefined && value !== '';
    case 'NOT_HAS_PROPERTY':
      return value === undefined || value === '';
    default:
      return false;
  }
}

function view(object: FakeObject): Record<string, unknown> {
  return { id: object.id, properties: { ...object.properties }, createdAt: object.createdAt, updatedAt: object.updatedAt, archived: false };
}
