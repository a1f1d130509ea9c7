import { isObject, type Reply } from '../json-service.js';
import { errorReply } from './errors.js';
import { CALL_DEFAULT_PROPERTIES, objectView, shuffled, type FakeStore, type UniqueConflict } from './store.js';
import { validateCallProperties, type PropertyError } from './validate-call.js';

/** How the fake answers a batch in which some inputs have invalid property values. */
export type InvalidInputMode = 'multi-status' | 'reject-batch';

/**
 * What an upsert result's `properties` hold. HubSpot's reference shows a `properties` map without
 * saying which; `defaults` (hs_createdate, hs_lastmodifieddate, hs_object_id, so not the id
 * property) is the reading a client must survive, `written` echoes every property of the object.
 */
export type UpsertEcho = 'defaults' | 'written';

/**
 * `POST /crm/v3/objects/calls/batch/upsert`: create or update by the unique property named in
 * each input's `idProperty`. The whole batch is refused (400) for more than 100 inputs, an
 * unknown or non-unique idProperty, or one id given twice; invalid property values, and unique
 * values another call holds (an archived one under the `held` reading), give a 207 with the good
 * inputs stored, or a 400 (409 for a conflict) for the whole batch in `reject-batch` mode.
 */
export function batchUpsertCalls(store: FakeStore, body: unknown, mode: InvalidInputMode, echo: UpsertEcho): Reply {
  const inputs = isObject(body) && Array.isArray(body.inputs) ? (body.inputs as unknown[]) : undefined;
  if (inputs === undefined || !inputs.every(isObject))
    return errorReply(400, 'VALIDATION_ERROR', 'Invalid input JSON on line 1: inputs must be an array of objects');
  if (inputs.length > 100) return errorReply(400, 'VALIDATION_ERROR', `Batch input must contain at most 100 inputs; received ${inputs.length}`);
  const seen = new Set<string>();
  for (const input of inputs) {
    const idProperty = typeof input.idProperty === 'string' ? input.idProperty : '';
    const property = store.callProperties.get(idProperty);
    if (property === undefined) return errorReply(400, 'VALIDATION_ERROR', `Unable to find property ${idProperty} on object type calls`);
    if (!property.hasUniqueValue)
      return errorReply(400, 'VALIDATION_ERROR', `Property ${idProperty} is not a unique identifier property and cannot be used as idProperty`);
    const id = typeof input.id === 'string' ? input.id : '';
    if (id === '') return errorReply(400, 'VALIDATION_ERROR', 'Input id is missing or empty');
    if (seen.has(id)) return errorReply(400, 'VALIDATION_ERROR', `Duplicate IDs found in batch input: [${id}]. IDs must be unique`);
    seen.add(id);
  }
  const checked = inputs.map((input) => {
    const properties = isObject(input.properties) ? input.properties : {};
    return { id: String(input.id), idProperty: String(input.idProperty), properties, errors: validateCallProperties(properties, store.callProperties) };
  });
  const invalid = checked.filter((input) => input.errors.length > 0);
  if (invalid.length > 0 && mode === 'reject-batch') return errorReply(400, 'VALIDATION_ERROR', notValid(invalid[0]?.errors ?? []));
  if (mode === 'reject-batch') {
    const conflict = checked
      .map((input) => store.upsertConflict(input.idProperty, input.id, stringValues(input.properties)))
      .find((found) => found !== undefined);
    if (conflict !== undefined) return errorReply(409, 'CONFLICT', conflictMessage(conflict));
  }

  const startedAt = new Date().toISOString();
  const results: unknown[] = [];
  const errors: unknown[] = invalid.map((input) => ({
    status: 'error',
    category: 'VALIDATION_ERROR',
    message: notValid(input.errors),
    context: { id: [input.id] },
  }));
  for (const input of checked.filter((each) => each.errors.length === 0)) {
    const outcome = store.upsertCall(input.idProperty, input.id, stringValues(input.properties));
    if ('conflict' in outcome) {
      errors.push({ status: 'error', category: 'CONFLICT', message: conflictMessage(outcome.conflict), context: { id: [input.id] } });
      continue;
    }
    const view = objectView(outcome.object, echo === 'written' ? Object.keys(outcome.object.properties) : undefined, CALL_DEFAULT_PROPERTIES);
    results.push({ ...view, new: outcome.created });
  }
  // HubSpot promises no order for batch results.
  const completed = { status: 'COMPLETE', results: shuffled(results), startedAt, completedAt: new Date().toISOString() };
  if (errors.length === 0) return { status: 200, body: completed };
  return { status: 207, body: { ...completed, numErrors: errors.length, errors } };
}

/** HubSpot's shape for a unique value taken by another object; its wording for this case is not documented. */
export function conflictMessage(conflict: UniqueConflict): string {
  return `Unique property ${conflict.property} already has the value ${conflict.value} on another object`;
}

export function stringValues(properties: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, String(value)]));
}

function notValid(errors: readonly PropertyError[]): string {
  return `Property values were not valid: ${JSON.stringify(errors)}`;
}
