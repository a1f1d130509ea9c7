import { isObject, type Reply } from '../json-service.js';
import { apiError } from './reply.js';
import { type FakeField, type FakeOrgStore, type FieldValue } from './store.js';

/**
 * sObject Collections ("Upsert Records Using sObject Collections", "Create Records Using sObject
 * Collections", "Delete Records Using sObject Collections") and the single-record create:
 * - at most 200 records, else `400 EXCEEDED_ID_LIMIT`;
 * - each record carries `attributes.type`, which must be the object of the URI;
 * - results come back in request order: `{ id, success, errors: [{ statusCode, message, fields }], created }`;
 * - `allOrNone: false` keeps the good records when others fail (`true` rolls all back);
 * - an unknown field fails the whole request (`400 INVALID_FIELD`); a bad value fails its record;
 * - an external id value matching more than one record: Salesforce's single-record upsert answers
 *   `300 Multiple Choices`; for a collection the docs are silent, so the fake plays both readings:
 *   a per-record `DUPLICATE_EXTERNAL_ID` error (default) or the whole request answered 300.
 * - the same external id twice in one request: both records fail with `DUPLICATE_VALUE`.
 * - a record that matches an existing one and carries a field that is createable but not
 *   updateable (Task's `TaskSubtype`) fails with `INVALID_FIELD_FOR_INSERT_UPDATE` naming the
 *   fields ("Unable to create/update fields: …"), whatever the value: an upsert that updates is an
 *   update ("Object Reference: Task"; "Status Codes and Error Responses").
 */

export type DuplicateExternalIdReading = 'record-error' | 'status-300';

export interface CollectionContext {
  readonly store: FakeOrgStore;
  readonly now: number;
  /** Takes one injected `UNABLE_TO_LOCK_ROW` for a record, if any is left. */
  readonly lockFault: () => boolean;
  readonly duplicateExternalId: DuplicateExternalIdReading;
  readonly version: string;
}

interface RecordError {
  readonly statusCode: string;
  readonly message: string;
  readonly fields: readonly string[];
}

type Result = { id: string | null; success: boolean; errors: RecordError[]; created?: boolean };

export const MAX_COLLECTION = 200;

export function upsertTasks(context: CollectionContext, externalField: string, body: unknown): Reply {
  const field = context.store.taskFields.get(externalField.toLowerCase());
  if (field === undefined) return apiError(404, 'NOT_FOUND', `Provided external ID field does not exist or is not accessible: ${externalField}`);
  if (field.externalId !== true && field.name !== 'Id') return apiError(400, 'INVALID_FIELD', `Field ${field.name} is not an external id field`);
  const parsed = parseCollection(body, 'Task', context.store.taskFields);
  if ('status' in parsed) return parsed;
  const { records, allOrNone } = parsed;
  const values = records.map((record) => valueFor(record, field.name));
  const seen = new Map<string, number>();
  for (const value of values) if (value !== null) seen.set(value.toLowerCase(), (seen.get(value.toLowerCase()) ?? 0) + 1);
  if (context.duplicateExternalId === 'status-300') {
    const ambiguous = values.find((value) => value !== null && context.store.byField('Task', field.name, value).length > 1);
    if (ambiguous !== undefined && ambiguous !== null) {
      const urls = context.store.byField('Task', field.name, ambiguous).map((record) => `/services/data/${context.version}/sobjects/Task/${record.Id}`);
      return { status: 300, body: urls };
    }
  }
  const results: Result[] = records.map((record, index): Result => {
    const value = values[index] ?? null;
    if (value === null) return failure('REQUIRED_FIELD_MISSING', `Required fields are missing: [${field.name}]`, [field.name]);
    if ((seen.get(value.toLowerCase()) ?? 0) > 1) return failure('DUPLICATE_VALUE', `Duplicate external id specified: ${value}`, [field.name]);
    const problem = validateTask(context, record);
    if (problem !== undefined) return { id: null, success: false, errors: [problem] };
    const holders = context.store.byField('Task', field.name, value);
    if (holders.length > 1)
      return failure(
        'DUPLICATE_EXTERNAL_ID',
        `${field.name}: more than one record found for external id field: [${holders.map((holder) => holder.Id).join(', ')}]`,
        [field.name],
      );
    if (context.lockFault()) return failure('UNABLE_TO_LOCK_ROW', 'unable to obtain exclusive access to this record or 1 records', []);
    const fields = withoutAttributes(record);
    const holder = holders[0];
    if (holder !== undefined) {
      const fixed = notUpdateable(context, fields);
      if (fixed.length > 0) return failure('INVALID_FIELD_FOR_INSERT_UPDATE', unableToUpdate(fixed), fixed);
      context.store.update(holder, fields, context.now);
      return { id: holder.Id, success: true, errors: [], created: false };
    }
    return { id: context.store.insert('Task', fields, context.now).Id, success: true, errors: [], created: true };
  });
  return { status: 200, body: allOrNone ? rollBackIfAnyFailed(context, results) : results };
}

/** `POST /composite/sobjects`: creates records of any type; Leads need `LastName` and `Company`. */
export function createRecords(context: CollectionContext, body: unknown): Reply {
  const parsed = parseCollection(body, undefined, context.store.taskFields);
  if ('status' in parsed) return parsed;
  const results = parsed.records.map((record): Result => {
    const type = (record.attributes as { type: string }).type;
    return createOne(context, type, withoutAttributes(record));
  });
  return { status: 200, body: parsed.allOrNone ? rollBackIfAnyFailed(context, results) : results };
}

/** `POST /sobjects/<Type>`: `201 { id, success, errors }`, or `400` with the error list. */
export function createSingle(context: CollectionContext, type: string, body: unknown): Reply {
  if (!isObject(body)) return apiError(400, 'JSON_PARSER_ERROR', 'The request body is not a JSON object');
  const result = createOne(context, type, body as Record<string, FieldValue>);
  if (!result.success)
    return { status: 400, body: result.errors.map((error) => ({ message: error.message, errorCode: error.statusCode, fields: error.fields })) };
  return { status: 201, body: { id: result.id, success: true, errors: [] } };
}

/** `DELETE /composite/sobjects?ids=…&allOrNone=false`: to the recycle bin, results in the order of `ids`. */
export function deleteRecords(context: CollectionContext, url: URL): Reply {
  const ids = (url.searchParams.get('ids') ?? '').split(',').filter((id) => id !== '');
  if (ids.length > MAX_COLLECTION)
    return apiError(400, 'EXCEEDED_ID_LIMIT', `record limit reached. cannot submit more than ${MAX_COLLECTION} records into this call`);
  const results = ids.map((id): Result => {
    const record = context.store.records.get(id);
    if (record === undefined || record.deleted)
      return { id, success: false, errors: [{ statusCode: 'ENTITY_IS_DELETED', message: 'entity is deleted', fields: [] }] };
    context.store.remove(record);
    return { id, success: true, errors: [] };
  });
  return { status: 200, body: results };
}

function createOne(context: CollectionContext, type: string, fields: Record<string, FieldValue>): Result {
  if (type === 'Lead') {
    const missing = ['LastName', 'Company'].filter((name) => typeof fields[name] !== 'string' || fields[name] === '');
    if (missing.length > 0) return failure('REQUIRED_FIELD_MISSING', `Required fields are missing: [${missing.join(', ')}]`, missing);
  }
  if (type === 'Task') {
    const problem = validateTask(context, fields);
    if (problem !== undefined) return { id: null, success: false, errors: [problem] };
  }
  return { id: context.store.insert(type, fields, context.now).Id, success: true, errors: [] };
}

function parseCollection(
  body: unknown,
  type: string | undefined,
  taskFields: ReadonlyMap<string, FakeField>,
): Reply | { records: Record<string, FieldValue | object>[]; allOrNone: boolean } {
  if (!isObject(body) || !Array.isArray(body.records)) return apiError(400, 'JSON_PARSER_ERROR', 'Expected { allOrNone, records: [...] }');
  if (body.records.length > MAX_COLLECTION)
    return apiError(400, 'EXCEEDED_ID_LIMIT', `record limit reached. cannot submit more than ${MAX_COLLECTION} records into this call`);
  const records: Record<string, FieldValue | object>[] = [];
  for (const record of body.records as unknown[]) {
    if (!isObject(record) || !isObject(record.attributes) || typeof record.attributes.type !== 'string') {
      return apiError(400, 'INVALID_FIELD', 'Each record requires an attributes map with a type');
    }
    if (type !== undefined && record.attributes.type !== type)
      return apiError(400, 'INVALID_TYPE', `Record type ${record.attributes.type} does not match ${type}`);
    if (record.attributes.type === 'Task') {
      const unknown = Object.keys(record).find((name) => name !== 'attributes' && !taskFields.has(name.toLowerCase()));
      if (unknown !== undefined) return apiError(400, 'INVALID_FIELD', `No such column '${unknown}' on sobject of type Task`);
    }
    records.push(record as Record<string, FieldValue | object>);
  }
  return { records, allOrNone: body.allOrNone === true };
}

function validateTask(context: CollectionContext, record: Readonly<Record<string, unknown>>): RecordError | undefined {
  for (const [name, held] of Object.entries(record)) {
    const field = context.store.taskFields.get(name.toLowerCase());
    if (field === undefined || held === null || name === 'attributes') continue;
    const value = typeof held === 'object' ? JSON.stringify(held) : (held as string | number | boolean);
    if (
      (field.type === 'string' || field.type === 'textarea' || field.type === 'url') &&
      typeof value === 'string' &&
      field.length !== undefined &&
      value.length > field.length
    ) {
      return {
        statusCode: 'STRING_TOO_LONG',
        message: `${field.name}: data value too large: ${value.slice(0, 40)}... (max length=${field.length})`,
        fields: [field.name],
      };
    }
    if (
      field.type === 'picklist' &&
      field.picklist !== undefined &&
      !field.picklist.includes(String(value)) &&
      (field.name === 'CallType' || field.name === 'TaskSubtype')
    ) {
      return {
        statusCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
        message: `${field.name}: bad value for restricted picklist field: ${String(value)}`,
        fields: [field.name],
      };
    }
    if (field.type === 'date' && !(typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)))) {
      return { statusCode: 'INVALID_TYPE_ON_FIELD_IN_RECORD', message: `${field.name}: value not of required type: ${String(value)}`, fields: [field.name] };
    }
    if (field.type === 'int' && !(typeof value === 'number' && Number.isInteger(value))) {
      return { statusCode: 'INVALID_TYPE_ON_FIELD_IN_RECORD', message: `${field.name}: value not of required type: ${String(value)}`, fields: [field.name] };
    }
    if (field.type === 'reference' && field.name === 'WhoId') {
      const who = context.store.records.get(String(value));
      if (who === undefined || who.deleted || (who.type !== 'Contact' && who.type !== 'Lead')) {
        return { statusCode: 'INVALID_CROSS_REFERENCE_KEY', message: `invalid cross reference id`, fields: ['WhoId'] };
      }
    }
  }
  return undefined;
}

/** Fields of the record (sent with any value, null too) that Salesforce sets only on create. */
function notUpdateable(context: CollectionContext, fields: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(fields)
    .map((name) => context.store.taskFields.get(name.toLowerCase()))
    .filter((field): field is FakeField => field !== undefined && field.updateable === false)
    .map((field) => field.name);
}

function unableToUpdate(fields: readonly string[]): string {
  return `Unable to create/update fields: ${fields.join(', ')}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`;
}

function valueFor(record: Readonly<Record<string, unknown>>, field: string): string | null {
  const key = Object.keys(record).find((name) => name.toLowerCase() === field.toLowerCase());
  const value = key === undefined ? null : record[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

function withoutAttributes(record: Readonly<Record<string, unknown>>): Record<string, FieldValue> {
  const { attributes: _, ...fields } = record;
  return fields as Record<string, FieldValue>;
}

function failure(statusCode: string, message: string, fields: readonly string[]): Result {
  return { id: null, success: false, errors: [{ statusCode, message, fields }] };
}

/** `allOrNone: true`: one failure fails them all, and what the request created or changed is undone. */
function rollBackIfAnyFailed(context: CollectionContext, results: Result[]): Result[] {
  if (results.every((result) => result.success)) return results;
  for (const result of results) {
    if (result.success && result.created === true && result.id !== null) context.store.forget(result.id);
  }
  return results.map((result) =>
    result.success
      ? {
          id: null,
          success: false,
          errors: [
            {
              statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK',
              message: 'Record rolled back because not all records were valid and the request was using AllOrNone header',
              fields: [],
            },
          ],
        }
      : result,
  );
}
