import { isObject, type Reply } from '../json-service.js';
import { errorReply } from './errors.js';
import type { FakeStore } from './store.js';

/** `GET /crm/v3/properties/calls/{name}`. */
export function readCallProperty(store: FakeStore, name: string): Reply {
  const property = store.callProperties.get(name);
  if (property === undefined) return errorReply(404, 'OBJECT_NOT_FOUND', `Unable to find property ${name} on object type calls`);
  return { status: 200, body: { ...property, archived: false } };
}

/** `POST /crm/v3/properties/calls`: name, label, type, fieldType and groupName required; 409 when it exists. */
export function createCallProperty(store: FakeStore, body: unknown): Reply {
  const input = isObject(body) ? body : {};
  const missing = ['name', 'label', 'type', 'fieldType', 'groupName'].filter((key) => typeof input[key] !== 'string' || input[key] === '');
  if (missing.length > 0) return errorReply(400, 'VALIDATION_ERROR', `Property is missing required fields: ${missing.join(', ')}`);
  const name = String(input.name);
  if (store.callProperties.has(name)) return errorReply(409, 'OBJECT_ALREADY_EXISTS', `A property named '${name}' already exists.`);
  if (input.groupName !== 'callinformation') return errorReply(400, 'VALIDATION_ERROR', `Unknown property group ${String(input.groupName)}`);
  const property = {
    name,
    label: String(input.label),
    type: String(input.type),
    fieldType: String(input.fieldType),
    groupName: String(input.groupName),
    hasUniqueValue: input.hasUniqueValue === true,
  };
  store.callProperties.set(name, property);
  return { status: 201, body: { ...property, archived: false } };
}
