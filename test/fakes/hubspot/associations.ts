import { isObject, type Reply } from '../json-service.js';
import { errorReply } from './errors.js';
import { shuffled, type FakeStore } from './store.js';

const spec = { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 194 };

/**
 * The status of an associate-default answer with per-pair errors. HubSpot's reference documents
 * one response (200, `BatchResponsePublicDefaultAssociation` with `errors[]` and `numErrors`);
 * other batch endpoints answer such a batch with 207. The fake plays either; 200 by default.
 */
export type AssociationErrorStatus = 200 | 207;

/**
 * `POST /crm/v4/associations/calls/contacts/batch/associate/default`: unknown ids, and pairs the
 * `fail` callback picks, come back as error entries (no result); results in no particular order.
 */
export function associateDefault(store: FakeStore, body: unknown, errorStatus: AssociationErrorStatus, fail: () => boolean): Reply {
  const inputs = isObject(body) && Array.isArray(body.inputs) ? (body.inputs as unknown[]) : undefined;
  if (inputs === undefined) return errorReply(400, 'VALIDATION_ERROR', 'inputs must be an array');
  if (inputs.length > 2000) return errorReply(400, 'VALIDATION_ERROR', `Batch input must contain at most 2000 inputs; received ${inputs.length}`);
  const results: unknown[] = [];
  const errors: unknown[] = [];
  for (const input of inputs) {
    const from = isObject(input) && isObject(input.from) ? String(input.from.id) : '';
    const to = isObject(input) && isObject(input.to) ? String(input.to.id) : '';
    if (!store.calls.has(from) || !store.contacts.has(to)) {
      errors.push({
        status: 'error',
        category: 'OBJECT_NOT_FOUND',
        message: `No call ${from} or no contact ${to}`,
        context: { fromObjectId: [from], toObjectId: [to] },
      });
      continue;
    }
    if (fail()) {
      errors.push({
        status: 'error',
        category: 'INTERNAL_ERROR',
        message: `Association between call ${from} and contact ${to} could not be created; try again`,
        context: { fromObjectId: [from], toObjectId: [to] },
      });
      continue;
    }
    store.associate(from, to);
    results.push({ from: { id: from }, to: { id: to }, associationSpec: spec });
  }
  const now = new Date().toISOString();
  const completed = { status: 'COMPLETE', results: shuffled(results), startedAt: now, completedAt: now };
  return errors.length === 0 ? { status: 200, body: completed } : { status: errorStatus, body: { ...completed, numErrors: errors.length, errors } };
}
