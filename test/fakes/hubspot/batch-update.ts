import { inputIds } from './batch-archive.js';
import { conflictMessage, stringValues } from './batch-upsert.js';
import { isObject, type Reply } from '../json-service.js';
import { errorReply } from './errors.js';
import { CALL_DEFAULT_PROPERTIES, objectView, shuffled, type FakeStore } from './store.js';
import { validateCallProperties } from './validate-call.js';

/**
 * `POST /crm/v3/objects/calls/batch/update` by object id (`inputs: [{ id, properties }]`, ≤ 100):
 * sets the given properties of live calls. An id that is not a live call (never was, or archived:
 * HubSpot documents no update of archived objects) comes back as a 207 error (OBJECT_NOT_FOUND),
 * as do invalid values and a unique value another call holds (CONFLICT); the rest is stored.
 */
export function batchUpdateCalls(store: FakeStore, body: unknown): Reply {
  const ids = inputIds(body);
  if (ids === undefined) return errorReply(400, 'VALIDATION_ERROR', 'inputs must be an array of { id, properties }');
  if (ids.length > 100) return errorReply(400, 'VALIDATION_ERROR', `Batch input must contain at most 100 inputs; received ${ids.length}`);
  if (new Set(ids).size !== ids.length) return errorReply(400, 'VALIDATION_ERROR', 'Duplicate IDs found in batch input. IDs must be unique');
  const inputs = (body as { inputs: Record<string, unknown>[] }).inputs;
  const startedAt = new Date().toISOString();
  const results: unknown[] = [];
  const errors: unknown[] = [];
  for (const input of inputs) {
    const id = String(input.id);
    const properties = isObject(input.properties) ? input.properties : {};
    const invalid = validateCallProperties(properties, store.callProperties);
    if (invalid.length > 0) {
      errors.push({
        status: 'error',
        category: 'VALIDATION_ERROR',
        message: `Property values were not valid: ${JSON.stringify(invalid)}`,
        context: { id: [id] },
      });
      continue;
    }
    const outcome = store.updateCall(id, stringValues(properties));
    if ('notFound' in outcome)
      errors.push({ status: 'error', category: 'OBJECT_NOT_FOUND', message: `Could not find CALL with id ${id}`, context: { id: [id] } });
    else if ('conflict' in outcome) errors.push({ status: 'error', category: 'CONFLICT', message: conflictMessage(outcome.conflict), context: { id: [id] } });
    else results.push(objectView(outcome.object, Object.keys(properties), CALL_DEFAULT_PROPERTIES));
  }
  const completed = { status: 'COMPLETE', results: shuffled(results), startedAt, completedAt: new Date().toISOString() };
  if (errors.length === 0) return { status: 200, body: completed };
  return { status: 207, body: { ...completed, numErrors: errors.length, errors } };
}
