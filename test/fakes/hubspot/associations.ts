import { errorReply, isObject, type Reply } from './errors.js';
import type { FakeStore } from './store.js';

const spec = { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 194 };

/** `POST /crm/v4/associations/calls/contacts/batch/associate/default`: unknown ids come back as 207 errors. */
export function associateDefault(store: FakeStore, body: unknown): Reply {
  const inputs = isObject(body) && Array.isArray(body.inputs) ? (body.inputs as unknown[]) : undefined;
  if (inputs === undefined) return errorReply(400, 'VALIDATION_ERROR', 'inputs must be an array');
  const results: unknown[] = [];
  const errors: unknown[] = [];
  for (const input of inputs) {
    const from = isObject(input) && isObject(input.from) ? String(input.from.id) : '';
    const to = isObject(input) && isObject(input.to) ? String(input.to.id) : '';
    if (!store.calls.has(from) || !store.contacts.has(to)) {
      errors.push({ status: 'error', category: 'VALIDATION_ERROR', message: `No call ${from} or contact ${to}`, context: { fromId: [from], toId: [to] } });
      continue;
    }
    store.associate(from, to);
    results.push({ from: { id: from }, to: { id: to }, associationSpec: spec });
  }
  const completed = { status: 'COMPLETE', results, startedAt: new Date().toISOString(), completedAt: new Date().toISOString() };
  return errors.length === 0 ? { status: 200, body: completed } : { status: 207, body: { ...completed, numErrors: errors.length, errors } };
}
