/**
 * JSON numbers that a parser silently turns into a different integer (`100000016.0000000001`
 * reads as `100000016`) would merge two records that upstream keeps apart when used as ids.
 * `parseJsonExact` parses like `JSON.parse`, except that such a number becomes
 * `{ "$inexactNumber": "<its text>" }`, which no normalizer accepts as a number or an id: the
 * record becomes a dead letter naming the value instead of overwriting its twin.
 */

/** The key of the object an inexact number is replaced with. */
export const INEXACT_NUMBER_KEY = '$inexactNumber';

// A number with 16 or more significant digits, or an exponent, is the only kind that can collapse.
const CANDIDATE = /\d[\d.]{15,}|\d[eE]/;

export function parseJsonExact(text: string): unknown {
  return JSON.parse(CANDIDATE.test(text) ? markInexactNumbers(text) : text) as unknown;
}

/** The literal text of a value `parseJsonExact` marked, or undefined for any other value. */
export function inexactNumberText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const text = (value as Record<string, unknown>)[INEXACT_NUMBER_KEY];
  return typeof text === 'string' && Object.keys(value).length === 1 ? text : undefined;
}

/** Rewrites, outside strings, every number literal whose parsed value is an integer it does not equal. */
function markInexactNumbers(text: string): string {
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string, escapes included.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
      continue;
    }
    if (c !== 0x2d && (c < 0x30 || c > 0x39)) continue;
    let end = i + 1;
    while (end < text.length && /[\d.eE+-]/.test(text.charAt(end))) end++;
    const literal = text.slice(i, end);
    if (isInexactInteger(literal)) {
      out += `${text.slice(copied, i)}{"${INEXACT_NUMBER_KEY}":"${literal}"}`;
      copied = end;
    }
    i = end - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function isInexactInteger(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isInteger(value) || !/[.eE]/.test(literal)) return false;
  const match = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (match === null) return false;
  const [, whole = '', fraction = '', exponent = '0'] = match;
  // Shift the decimal point by the exponent; the literal is an integer when nothing but zeros
  // is left after it.
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  const after = point < 0 ? digits : digits.slice(Math.max(0, point));
  return /[1-9]/.test(after);
}
