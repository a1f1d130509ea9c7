import { INEXACT_NUMBER_KEY } from './primitives.js';

/**
 * JSON numbers that a parser silently turns into a different integer (`100000016.0000000001`
 * reads as `100000016`) would merge two records that upstream keeps apart when used as ids.
 * `parseJsonExact` parses like `JSON.parse`, except that such a number becomes
 * `{ "$inexactNumber": "<its text>" }`, which no normalizer accepts as a number or an id: the
 * record becomes a dead letter naming the value instead of overwriting its twin.
 */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(markInexactNumbers(text)) as unknown;
}

/**
 * Rewrites, outside strings, every number literal whose parsed value is an integer it does not equal.
 * Runs on every page, so strings (most of a page: ids, URLs, text) are skipped by `indexOf`, and
 * only a literal with a fraction or an exponent, the only kind that can collapse, is looked at.
 */
function markInexactNumbers(text: string): string {
  let out = '';
  let copied = 0;
  for (let from = 0; ;) {
    const quote = text.indexOf('"', from);
    const end = quote === -1 ? text.length : quote;
    for (let i = from; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x2d && (c < 0x30 || c > 0x39)) continue;
      let after = i + 1;
      let fractionOrExponent = false;
      for (; after < end; after++) {
        const d = text.charCodeAt(after);
        if (d === 0x2e || d === 0x65 || d === 0x45) fractionOrExponent = true;
        else if ((d < 0x30 || d > 0x39) && d !== 0x2b && d !== 0x2d) break;
      }
      const literal = fractionOrExponent ? text.slice(i, after) : '';
      if (literal !== '' && isInexactInteger(literal)) {
        out += `${text.slice(copied, i)}{"${INEXACT_NUMBER_KEY}":"${literal}"}`;
        copied = after;
      }
      i = after - 1;
    }
    if (quote === -1) break;
    const close = closingQuote(text, quote);
    if (close === -1) break;
    from = close + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Where the string opened at `quote` ends (a quote after an even run of backslashes), or -1. */
function closingQuote(text: string, quote: number): number {
  for (let close = text.indexOf('"', quote + 1); close !== -1; close = text.indexOf('"', close + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return close;
  }
  return -1;
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
