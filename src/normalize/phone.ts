import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { jsonType, parsed, problem, show, type Parsed } from './result.js';

const E164 = /^\+[1-9]\d{6,14}$/;
const DIGITS = /^\d+$/;
// Only characters people use to format numbers; anything else is not a phone number.
const FORMATTED = /^\+?[\d\s().\-/]+$/;

/**
 * A phone number in E.164 (`+<digits>`). Kept when already E.164; a bare JSON number or digit
 * string (v2 declares its numbers as numbers) becomes `+<digits>`; a formatted national number
 * such as `(415) 555-2671` or `+1 415-555-2671` goes through libphonenumber-js with a US
 * default, accepted when its length is possible for the country. Absent or empty → null.
 */
export function parsePhone(value: unknown): Parsed<string | null> {
  if (value === null || value === undefined || value === '') return parsed(null);
  let candidate: string;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value <= 0) return problem(`not a phone number: ${show(value)}`);
    candidate = `+${value}`;
  } else if (typeof value === 'string') {
    const text = value.trim();
    if (E164.test(text)) return parsed(text);
    if (DIGITS.test(text)) candidate = `+${text}`;
    else return fromFormatted(text, value);
  } else {
    return problem(`expected a phone number, got ${jsonType(value)}`);
  }
  return E164.test(candidate) ? parsed(candidate) : problem(`not an E.164 number: ${show(value)}`);
}

function fromFormatted(text: string, original: string): Parsed<string> {
  if (!FORMATTED.test(text) || text.length > 40) return problem(`not an E.164 number: ${show(original)}`);
  const number = parsePhoneNumberFromString(text, 'US');
  if (number?.isPossible() && E164.test(number.number)) return parsed(number.number);
  return problem(`not an E.164 number: ${show(original)}`);
}
