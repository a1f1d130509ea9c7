import type { Reply } from '../json-service.js';

/** Salesforce's REST error body: an array of `{ message, errorCode, fields? }`. */
export function apiError(status: number, errorCode: string, message: string, fields?: readonly string[]): Reply {
  return { status, body: [{ message, errorCode, ...(fields === undefined ? {} : { fields }) }] };
}
