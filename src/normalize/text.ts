import { jsonType, parsed, problem, type Parsed } from './result.js';

/** Largest text value stored, in UTF-8 bytes; a bigger value is a broken or hostile record. */
export const MAX_TEXT_BYTES = 1024 * 1024;

/** A free-text field: absent or empty → null; non-strings and values over 1 MB are problems. */
export function parseText(value: unknown): Parsed<string | null> {
  if (value === null || value === undefined || value === '') return parsed(null);
  if (typeof value !== 'string') return problem(`expected a string, got ${jsonType(value)}`);
  // Cheap length test first: a UTF-8 code unit is at most 3 bytes.
  if (value.length * 3 > MAX_TEXT_BYTES && Buffer.byteLength(value, 'utf8') > MAX_TEXT_BYTES) {
    return problem(`longer than ${MAX_TEXT_BYTES} bytes`);
  }
  return parsed(value);
}
