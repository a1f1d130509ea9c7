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

const text = (name: string, fieldType = 'text'): FakeProperty => ({
  name,
  label: name,
  type: 'string',
  fieldType,
  groupName: 'callinformation',
  hasUniqueValue: false,
});

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

/**
 * What an archived call's unique values do. HubSpot documents that archiving moves a call to the
 * recycling bin, restorable for 90 days in the app, but not whether its unique values stay taken
 * there. `freed`: they are released, so an upsert of the value creates a new call (what HubSpot
 * documents for a contact's email: an active contact with the same email blocks restoring the
 * deleted one). `held`: the archived call keeps them, and a create or update that needs one is
 * refused with a conflict.
 */
export type ArchivedUniqueValue = 'freed' | 'held';

/** A unique value another call (live, or archived under `held`) already holds. */
export interface UniqueConflict {
  readonly property: string;
  readonly value: string;
  readonly holder: FakeObject;
}

export class FakeStore {
  readonly calls = new Map<string, FakeObject>();
  /** Live calls by `${property}\u0000${value}` for every unique-valued property, so upserts stay O(1) at bench sizes. */
  readonly #byUnique = new Map<string, FakeObject>();
  /** Under `held`: the archived call holding each unique value. */
  readonly #heldByArchived = new Map<string, FakeObject>();
  /** Archived calls (HubSpot's recycling bin), by object id, in the order they were archived. */
  readonly archivedCalls = new Map<string, FakeObject>();
  readonly archivedAt = new Map<string, string>();
  readonly contacts = new Map<string, FakeObject>();
  readonly associations: FakeAssociation[] = [];
  readonly callProperties = new Map<string, FakeProperty>();
  readonly #associated = new Set<string>();
  readonly #archivedUniqueValue: ArchivedUniqueValue;
  #nextId = 1000;

  constructor(contacts: readonly Record<string, string>[], archivedUniqueValue: ArchivedUniqueValue = 'held') {
    this.#archivedUniqueValue = archivedUniqueValue;
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

  /** Create-or-update by a unique property's value; a value an archived call holds (under `held`) is a conflict. */
  upsertCall(idProperty: string, value: string, properties: Record<string, string>): { object: FakeObject; created: boolean } | { conflict: UniqueConflict } {
    const existing = this.#byUnique.get(uniqueKey(idProperty, value));
    if (existing !== undefined) {
      const updated = this.updateCall(existing.id, { ...properties, [idProperty]: value });
      return 'conflict' in updated ? updated : { object: existing, created: false };
    }
    const wanted = { ...properties, [idProperty]: value };
    const conflict = this.conflictFor(wanted, undefined);
    if (conflict !== undefined) return { conflict };
    const now = new Date().toISOString();
    const object = { id: this.newId(), properties: wanted, createdAt: now, updatedAt: now };
    this.calls.set(object.id, object);
    this.#index(object, this.#byUnique);
    return { object, created: true };
  }

  /** The conflict an upsert of these inputs would meet, without writing anything. */
  upsertConflict(idProperty: string, value: string, properties: Record<string, string>): UniqueConflict | undefined {
    const existing = this.#byUnique.get(uniqueKey(idProperty, value));
    const wanted = { ...(existing?.properties ?? {}), ...properties, [idProperty]: value };
    return this.conflictFor(wanted, existing);
  }

  /** Sets properties of a live call by object id. */
  updateCall(id: string, properties: Record<string, string>): { object: FakeObject } | { conflict: UniqueConflict } | { notFound: true } {
    const call = this.calls.get(id);
    if (call === undefined) return { notFound: true };
    const wanted = { ...call.properties, ...properties };
    const conflict = this.conflictFor(wanted, call);
    if (conflict !== undefined) return { conflict };
    this.#unindex(call, this.#byUnique);
    call.properties = wanted;
    call.updatedAt = new Date().toISOString();
    this.#index(call, this.#byUnique);
    return { object: call };
  }

  /** The first unique value of `properties` held by a call other than `self`. */
  conflictFor(properties: Readonly<Record<string, string>>, self: FakeObject | undefined): UniqueConflict | undefined {
    for (const property of this.#uniqueProperties()) {
      const value = properties[property];
      if (value === undefined) continue;
      const key = uniqueKey(property, value);
      const holder = this.#byUnique.get(key) ?? this.#heldByArchived.get(key);
      if (holder !== undefined && holder !== self) return { property, value, holder };
    }
    return undefined;
  }

  /** The live call whose unique property holds `value`. */
  callByUnique(idProperty: string, value: string): FakeObject | undefined {
    return this.#byUnique.get(uniqueKey(idProperty, value));
  }

  /** The archived call last archived with `value` in `property` (rare in tests: a scan). */
  archivedCallByUnique(property: string, value: string): FakeObject | undefined {
    return [...this.archivedCalls.values()].reverse().find((call) => call.properties[property] === value);
  }

  archiveCall(id: string): void {
    const call = this.calls.get(id);
    if (call === undefined) return;
    this.calls.delete(id);
    this.#unindex(call, this.#byUnique);
    if (this.#archivedUniqueValue === 'held') this.#index(call, this.#heldByArchived);
    this.archivedCalls.set(id, call);
    this.archivedAt.set(id, new Date().toISOString());
  }

  /**
   * A person restores an archived call in HubSpot's restore-records tool (there is no API for it).
   * Refused, as HubSpot documents for contacts, while a live call holds one of its unique values.
   */
  restoreCall(id: string): { restored: true } | { conflict: UniqueConflict } | { notFound: true } {
    const call = this.archivedCalls.get(id);
    if (call === undefined) return { notFound: true };
    this.#unindex(call, this.#heldByArchived);
    const conflict = this.conflictFor(call.properties, call);
    if (conflict !== undefined) {
      if (this.#archivedUniqueValue === 'held') this.#index(call, this.#heldByArchived);
      return { conflict };
    }
    this.archivedCalls.delete(id);
    this.archivedAt.delete(id);
    this.calls.set(id, call);
    this.#index(call, this.#byUnique);
    return { restored: true };
  }

  associate(callId: string, contactId: string): void {
    const key = `${callId}>${contactId}`;
    if (this.#associated.has(key)) return;
    this.#associated.add(key);
    this.associations.push({ fromType: 'calls', fromId: callId, toType: 'contacts', toId: contactId, associationTypeId: 194 });
  }

  *#uniqueProperties(): Iterable<string> {
    for (const property of this.callProperties.values()) if (property.hasUniqueValue) yield property.name;
  }

  #index(call: FakeObject, into: Map<string, FakeObject>): void {
    for (const property of this.#uniqueProperties()) {
      const value = call.properties[property];
      if (value !== undefined) into.set(uniqueKey(property, value), call);
    }
  }

  #unindex(call: FakeObject, from: Map<string, FakeObject>): void {
    for (const property of this.#uniqueProperties()) {
      const value = call.properties[property];
      const key = value === undefined ? undefined : uniqueKey(property, value);
      if (key !== undefined && from.get(key) === call) from.delete(key);
    }
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
export function objectView(
  object: FakeObject,
  requested: readonly string[] | undefined,
  defaults: readonly string[],
  archivedAt?: string,
): Record<string, unknown> {
  const names = requested === undefined || requested.length === 0 ? defaults : requested;
  const all: Record<string, string> = {
    ...object.properties,
    hs_object_id: object.id,
    hs_createdate: object.createdAt,
    createdate: object.createdAt,
    hs_lastmodifieddate: object.updatedAt,
    lastmodifieddate: object.updatedAt,
  };
  const properties = Object.fromEntries(names.map((name) => [name, all[name] ?? null]));
  const archived = archivedAt === undefined ? { archived: false } : { archived: true, archivedAt };
  return { id: object.id, properties, createdAt: object.createdAt, updatedAt: object.updatedAt, ...archived };
}

/** A request's `properties` list, when it is an array of strings. */
export function requestedProperties(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((name) => typeof name === 'string') ? value : undefined;
}
