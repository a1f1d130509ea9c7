import { inexactNumberText } from './exact-json.js';
import { jsonType, parsed, problem, show, type Parsed } from './result.js';

const MAX_ID_LENGTH = 255;

/**
 * A record id as a string: a non-empty string is kept as is (up to 255 characters, since it
 * is part of the primary key); a safe integer (v2's numeric `uuid`) becomes its decimal form.
 * Missing, empty, fractional, unsafe or structured values are problems, and so is a number the
 * JSON parser read as an integer it is not (`100000016.0000000001`, marked by `parseJsonExact`):
 * taken as `100000016` it would overwrite the record that really has that id.
 */
export function parseId(value: unknown): Parsed<string> {
  if (value === null || value === undefined) return problem('missing');
  const inexact = inexactNumberText(value);
  if (inexact !== undefined) return problem(`not an exact integer id: ${inexact} (a JSON parser reads it as ${Number(inexact)})`);
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) ? parsed(String(value)) : problem(`not a safe integer id: ${show(value)}`);
  }
  if (typeof value !== 'string') return problem(`expected a string or integer id, got ${jsonType(value)}`);
  if (value.trim() === '') return problem('empty');
  return value.length <= MAX_ID_LENGTH ? parsed(value) : problem(`longer than ${MAX_ID_LENGTH} characters`);
}
