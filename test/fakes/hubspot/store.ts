/** The fake portal's data, as plain objects the tests read back. */

export interface FakeObject {
  readonly id: string;
  properties: Record<string, string>;
  readonly createdAt: string;
  updatedAt: string;
}

export interface FakeProperty {
  readonly name: string;
  readonly label: string;
  readonly type: string;
  readonly fieldType: string;
  readonly groupName: string;
  readonly hasUniqueValue: boolean;
  /** Allowed values for enumeration properties. */
  readonly options?: readonly string[];
}

export interface FakeAssociation {
  readonly fromType: 'calls';
  readonly fromId: string;
  readonly toType: 'contacts';
  readonly toId: string;
  /** HubSpot's default call → contact association type. */
  readonly associationTypeId: 194;
}

const text = (name: string, fieldType = 'text'): FakeProperty => ({ name, label: name, type: 'string', fieldType, groupName: 'callinformation', hasUniqueValue: false });

/** The predefined call properties this fake knows (HubSpot refuses unknown property names). */
export function defaultCallProperties(): FakeProperty[] {
  return [
    { ...text('hs_timestamp'), type: 'datetime', fieldType: 'date' },
    { ...text('hs_call_direction'), type: 'enumeration', fieldType: 'select', options: ['INBOUND', 'OUTBOUND'] },
    { ...text('hs_call_duration'), type: 'number', fieldType: 'number' },
    text('hs_call_from_number'),
    text('hs_call_to_number'),
    text('hs_call_recording_url'),
    text('hs_call_body', 'html'),
    text('hs_call_title'),
    {
      ...text('hs_call_status'),
      type: 'enumeration',
      fieldType: 'select',
      options: ['BUSY', 'CALLING_CRM_USER', 'CANCELED', 'COMPLETED', 'CONNECTING', 'FAILED', 'IN_PROGRESS', 'NO_ANSWER', 'QUEUED', 'RINGING'],
    },
    text('hs_call_disposition'),
  ];
}

/** A copy of `items` in random order: HubSpot promises no order for batch results. */
export function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

export class FakeStore {
  readonly calls = new Map<string, FakeObject>();
  /** Live calls by `${idProperty}\u0000${value}`, so upserts stay O(1) at bench sizes. */
  readonly #byUnique = new Map<string, FakeObject>();
  /** Archived calls (HubSpot's recycling bin), by object id; an upsert never matches them. */
  readonly archivedCalls = new Map<string, FakeObject>();
  readonly contacts = new Map<string, FakeObject>();
  readonly associations: FakeAssociation[] = [];
  readonly callProperties = new Map<string, FakeProperty>();
  readonly #associated = new Set<string>();
  #nextId = 1000;

  constructor(contacts: readonly Record<string, string>[]) {
    for (const property of defaultCallProperties()) this.callProperties.set(property.name, property);
    for (const properties of contacts) this.createContact(properties);
  }

  newId(): string {
    this.#nextId += 1;
    return String(this.#nextId);
  }

  createContact(properties: Record<string, string>): FakeObject {
    const now = new Date().toISOString();
    const contact = { id: this.newId(), properties: { ...properties }, createdAt: now, updatedAt: now };
    this.contacts.set(contact.id, contact);
    return contact;
  }

  /** Create-or-update by a unique property's value; true when created. */
  upsertCall(idProperty: string, value: string, properties: Record<string, string>): { object: FakeObject; created: boolean } {
    const now = new Date().toISOString();
    const existing = this.#byUnique.get(uniqueKey(idProperty, value));
    if (existing !== undefined) {
      existing.properties = { ...existing.properties, ...properties, [idProperty]: value };
      existing.updatedAt = now;
      return { object: existing, created: false };
    }
    const object = { id: this.newId(), properties: { ...properties, [idProperty]: value }, createdAt: now, updatedAt: now };
    this.calls.set(object.id, object);
    this.#byUnique.set(uniqueKey(idProperty, value), object);
    return { object, created: true };
  }

  /** The live call whose unique property holds `value`. */
  callByUnique(idProperty: string, value: string): FakeObject | undefined {
    return this.#byUnique.get(uniqueKey(idProperty, value));
  }

  archiveCall(id: string): void {
    const call = this.calls.get(id);
    if (call === undefined) return;
    this.calls.delete(id);
    for (const [key, object] of this.#byUnique) if (object === call) this.#byUnique.delete(key);
    this.archivedCalls.set(id, call);
  }

  associate(callId: string, contactId: string): void {
    const key = `${callId}>${contactId}`;
    if (this.#associated.has(key)) return;
    this.#associated.add(key);
    this.associations.push({ fromType: 'calls', fromId: callId, toType: 'contacts', toId: contactId, associationTypeId: 194 });
  }
}

function uniqueKey(idProperty: string, value: string): string {
  return `${idProperty}\u0000${value}`;
}

/** Properties HubSpot returns for calls when none are asked for. */
export const CALL_DEFAULT_PROPERTIES: readonly string[] = ['hs_createdate', 'hs_lastmodifieddate', 'hs_object_id'];
/** Properties a contact search returns when none are asked for (HubSpot's search guide). */
export const CONTACT_DEFAULT_PROPERTIES: readonly string[] = ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'];

/**
 * An object as HubSpot answers it: only the properties asked for (or the defaults when none
 * are), each present even when empty (null), never the whole record.
 */
export function objectView(object: FakeObject, requested: readonly string[] | undefined, defaults: readonly string[]): Record<string, unknown> {
  const names = requested === undefined || requested.length === 0 ? defaults : requested;
  const all: Record<string, string> = { ...object.properties, hs_object_id: object.id, hs_createdate: object.createdAt, createdate: object.createdAt, hs_lastmodifieddate: object.updatedAt, lastmodifieddate: object.updatedAt };
  const properties = Object.fromEntries(names.map((name) => [name, all[name] ?? null]));
  return { id: object.id, properties, createdAt: object.createdAt, updatedAt: object.updatedAt, archived: false };
}

/** A request's `properties` list, when it is an array of strings. */
export function requestedProperties(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((name) => typeof name === 'string') ? value : undefined;
}
