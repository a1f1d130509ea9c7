/** The fake org's data: Tasks, Contacts and Leads, the Task field definitions, and the search index's lag. */

export type FieldValue = string | number | boolean | null;

export interface FakeRecord {
  readonly Id: string;
  readonly type: string;
  fields: Record<string, FieldValue>;
  /** When the search index (SOSL) will see this record's current values; SOQL sees them at once. */
  indexedAt: number;
  deleted: boolean;
  /** Times an update changed it since it was created. */
  updates: number;
}

/** A Task field as `describe` reports it (the subset the fake keeps). */
export interface FakeField {
  readonly name: string;
  readonly type: 'id' | 'string' | 'textarea' | 'picklist' | 'date' | 'int' | 'reference' | 'boolean' | 'url' | 'phone';
  readonly length?: number;
  readonly externalId?: boolean;
  readonly unique?: boolean;
  readonly custom?: boolean;
  readonly picklist?: readonly string[];
  /** False for a field Salesforce sets only on create (the Object Reference lists Create but not Update). @defaultValue true */
  readonly updateable?: boolean;
}

/** Task's standard fields the connector writes (Salesforce's "Object Reference": Task). */
export const STANDARD_TASK_FIELDS: readonly FakeField[] = [
  { name: 'Id', type: 'id' },
  { name: 'Subject', type: 'string', length: 255 },
  { name: 'Status', type: 'picklist', picklist: ['Not Started', 'In Progress', 'Completed', 'Waiting on someone else', 'Deferred'] },
  { name: 'Priority', type: 'picklist', picklist: ['High', 'Normal', 'Low'] },
  { name: 'ActivityDate', type: 'date' },
  // Properties: Create, Filter, Group, Nillable, Restricted picklist, Sort: no Update.
  { name: 'TaskSubtype', type: 'picklist', picklist: ['Task', 'Email', 'ListEmail', 'Cadence', 'Call', 'LinkedIn'], updateable: false },
  { name: 'CallType', type: 'picklist', picklist: ['Internal', 'Inbound', 'Outbound'] },
  { name: 'CallDurationInSeconds', type: 'int' },
  { name: 'CallObject', type: 'string', length: 255 },
  { name: 'CallDisposition', type: 'string', length: 255 },
  { name: 'Description', type: 'textarea', length: 32_000 },
  { name: 'WhoId', type: 'reference' },
];

/** Custom Task fields present unless the test says otherwise: the setup the connector's README asks for. */
export const DEFAULT_CUSTOM_TASK_FIELDS: readonly FakeField[] = [
  { name: 'Callsync_Id__c', type: 'string', length: 255, externalId: true, unique: true, custom: true },
  { name: 'Callsync_Record__c', type: 'textarea', length: 131_072, custom: true },
  { name: 'Recording_URL__c', type: 'url', length: 255, custom: true },
  { name: 'Callsync_Deleted__c', type: 'boolean', custom: true },
];

const KEY_PREFIX: Readonly<Record<string, string>> = { Task: '00T', Contact: '003', Lead: '00Q' };

export class FakeOrgStore {
  readonly records = new Map<string, FakeRecord>();
  readonly taskFields: Map<string, FakeField>;
  #next = 1;

  constructor(
    customTaskFields: readonly FakeField[],
    readonly indexLagMs: number,
  ) {
    this.taskFields = new Map([...STANDARD_TASK_FIELDS, ...customTaskFields].map((field) => [field.name.toLowerCase(), field]));
  }

  /** An 18-character id with the object's key prefix, as Salesforce's ids look. */
  newId(type: string): string {
    const serial = String(this.#next++).padStart(12, '0');
    return `${KEY_PREFIX[type] ?? '001'}${serial}AAA`;
  }

  insert(type: string, fields: Record<string, FieldValue>, now: number): FakeRecord {
    const record: FakeRecord = { Id: this.newId(type), type, fields: { ...fields }, indexedAt: now + this.indexLagMs, deleted: false, updates: 0 };
    this.records.set(record.Id, record);
    this.#index(record, true);
    return record;
  }

  update(record: FakeRecord, fields: Record<string, FieldValue>, now: number): void {
    this.#index(record, false);
    record.fields = { ...record.fields, ...fields };
    record.indexedAt = now + this.indexLagMs;
    record.updates += 1;
    this.#index(record, true);
  }

  /** To the recycle bin: kept, but no query, search or external id finds it. */
  remove(record: FakeRecord): void {
    this.#index(record, false);
    record.deleted = true;
  }

  /** Drops a record as if never written (an `allOrNone` rollback). */
  forget(id: string): void {
    const record = this.records.get(id);
    if (record !== undefined) this.#index(record, false);
    this.records.delete(id);
  }

  live(type: string): FakeRecord[] {
    return [...this.records.values()].filter((record) => record.type === type && !record.deleted);
  }

  /** Live records of `type` whose `field` holds `value` (external ids compare case-insensitively unless case-sensitive; the fake plays insensitive). */
  byField(type: string, field: string, value: string): FakeRecord[] {
    const indexed = this.#byExternalId.get(indexKey(type, field, value));
    if (indexed !== undefined || this.#indexed(type, field))
      return [...(indexed ?? [])].map((id) => this.records.get(id)).filter((record): record is FakeRecord => record !== undefined && !record.deleted);
    return this.live(type).filter((record) => {
      const held = valueOf(record, field);
      return typeof held === 'string' && held.toLowerCase() === value.toLowerCase();
    });
  }

  // External id fields are indexed (as Salesforce indexes them), so an upsert does not scan every Task.
  readonly #byExternalId = new Map<string, Set<string>>();

  #indexed(type: string, field: string): boolean {
    return type === 'Task' && this.taskFields.get(field.toLowerCase())?.externalId === true;
  }

  #index(record: FakeRecord, add: boolean): void {
    if (record.type !== 'Task' || record.deleted) return;
    for (const [name, value] of Object.entries(record.fields)) {
      if (typeof value !== 'string' || !this.#indexed('Task', name)) continue;
      const key = indexKey('Task', name, value);
      const ids = this.#byExternalId.get(key) ?? new Set<string>();
      if (add) ids.add(record.Id);
      else ids.delete(record.Id);
      if (ids.size === 0) this.#byExternalId.delete(key);
      else this.#byExternalId.set(key, ids);
    }
  }

  /** The record as SOQL returns it: `Id` and its fields. */
  view(record: FakeRecord): Record<string, FieldValue> {
    return { Id: record.Id, ...record.fields };
  }
}

export function valueOf(record: FakeRecord, field: string): FieldValue | undefined {
  if (field.toLowerCase() === 'id') return record.Id;
  const key = Object.keys(record.fields).find((name) => name.toLowerCase() === field.toLowerCase());
  return key === undefined ? undefined : record.fields[key];
}

function indexKey(type: string, field: string, value: string): string {
  return `${type}\u0000${field.toLowerCase()}\u0000${value.toLowerCase()}`;
}
