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

export class FakeStore {
  readonly calls = new Map<string, FakeObject>();
  /** Archived calls (HubSpot's recycling bin), by object id; an upsert never matches them. */
  readonly archivedCalls = new Map<string, FakeObject>();
  readonly contacts = new Map<string, FakeObject>();
  readonly associations: FakeAssociation[] = [];
  readonly callProperties = new Map<string, FakeProperty>();
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
    const existing = [...this.calls.values()].find((call) => call.properties[idProperty] === value);
    if (existing !== undefined) {
      existing.properties = { ...existing.properties, ...properties, [idProperty]: value };
      existing.updatedAt = now;
      return { object: existing, created: false };
    }
    const object = { id: this.newId(), properties: { ...properties, [idProperty]: value }, createdAt: now, updatedAt: now };
    this.calls.set(object.id, object);
    return { object, created: true };
  }

  archiveCall(id: string): void {
    const call = this.calls.get(id);
    if (call === undefined) return;
    this.calls.delete(id);
    this.archivedCalls.set(id, call);
  }

  associate(callId: string, contactId: string): void {
    if (this.associations.some((a) => a.fromId === callId && a.toId === contactId)) return;
    this.associations.push({ fromType: 'calls', fromId: callId, toType: 'contacts', toId: contactId, associationTypeId: 194 });
  }
}
