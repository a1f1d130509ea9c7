import { isObject, type Reply } from '../json-service.js';
import { errorReply } from './errors.js';
import { CALL_DEFAULT_PROPERTIES, objectView, requestedProperties, shuffled, type FakeObject, type FakeStore } from './store.js';

export function inputIds(body: unknown): string[] | undefined {
  const inputs = isObject(body) && Array.isArray(body.inputs) ? (body.inputs as unknown[]) : undefined;
  if (inputs === undefined || !inputs.every((input) => isObject(input) && typeof input.id === 'string')) return undefined;
  return inputs.map((input) => String((input as { id: string }).id));
}

/**
 * `POST /crm/v3/objects/calls/batch/read` with `idProperty`: the live calls whose unique property
 * holds one of the input ids; ids not found come back as 207 errors (OBJECT_NOT_FOUND). With the
 * documented query parameter `archived=true` ("whether to return only results that have been
 * archived"), only calls in the recycling bin, as `archived: true` with `archivedAt`.
 */
export function batchReadCalls(store: FakeStore, body: unknown, archived = false): Reply {
  const ids = inputIds(body);
  if (ids === undefined) return errorReply(400, 'VALIDATION_ERROR', 'inputs must be an array of { id }');
  if (ids.length > 100) return errorReply(400, 'VALIDATION_ERROR', `Batch input must contain at most 100 inputs; received ${ids.length}`);
  const idProperty = isObject(body) && typeof body.idProperty === 'string' ? body.idProperty : undefined;
  if (idProperty !== undefined && store.callProperties.get(idProperty)?.hasUniqueValue !== true) {
    return errorReply(400, 'VALIDATION_ERROR', `Property ${idProperty} is not a unique identifier property`);
  }
  const results: unknown[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const call = archived ? archivedCall(store, idProperty, id) : idProperty === undefined ? store.calls.get(id) : store.callByUnique(idProperty, id);
    if (call === undefined) missing.push(id);
    else
      results.push(objectView(call, requestedProperties(isObject(body) ? body.properties : undefined), CALL_DEFAULT_PROPERTIES, store.archivedAt.get(call.id)));
  }
  const completed = { status: 'COMPLETE', results: shuffled(results), startedAt: new Date().toISOString(), completedAt: new Date().toISOString() };
  if (missing.length === 0) return { status: 200, body: completed };
  const errors = [
    { status: 'error', category: 'OBJECT_NOT_FOUND', message: 'Could not get some CALL objects, they may be deleted or not exist.', context: { ids: missing } },
  ];
  return { status: 207, body: { ...completed, numErrors: 1, errors } };
}

function archivedCall(store: FakeStore, idProperty: string | undefined, id: string): FakeObject | undefined {
  return idProperty === undefined ? store.archivedCalls.get(id) : store.archivedCallByUnique(idProperty, id);
}

/** `POST /crm/v3/objects/calls/batch/archive`: moves the calls with these object ids to the recycling bin; 204, unknown ids ignored. */
export function batchArchiveCalls(store: FakeStore, body: unknown): Reply {
  const ids = inputIds(body);
  if (ids === undefined) return errorReply(400, 'VALIDATION_ERROR', 'inputs must be an array of { id }');
  if (ids.length > 100) return errorReply(400, 'VALIDATION_ERROR', `Batch input must contain at most 100 inputs; received ${ids.length}`);
  for (const id of ids) store.archiveCall(id);
  return { status: 204, body: undefined };
}
