import { jsonType, parsed, problem, show, type Parsed } from './result.js';

const CLOCK = /^(\d+):([0-5]\d):([0-5]\d)$/;
const MINUTES_SECONDS = /^(\d+):([0-5]\d)$/;
const DIGITS = /^\d+$/;

/**
 * A duration as integer seconds. Accepts `HH:MM:SS` (the v2 shape; hours may exceed 23),
 * `MM:SS`, and whole seconds as a JSON number or a digit string. Absent or empty → null.
 * Negative, fractional or malformed values are problems, never guesses.
 */
export function parseDuration(value: unknown): Parsed<number | null> {
  if (value === null || value === undefined || value === '') return parsed(null);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) return problem(`not a whole number of seconds: ${show(value)}`);
    return value < 0 ? problem(`negative duration ${show(value)}`) : parsed(value);
  }
  if (typeof value !== 'string') return problem(`expected "HH:MM:SS" or seconds, got ${jsonType(value)}`);
  const text = value.trim();
  const clock = CLOCK.exec(text);
  const short = clock ? undefined : MINUTES_SECONDS.exec(text);
  let seconds: number;
  if (clock) seconds = Number(clock[1]) * 3600 + Number(clock[2]) * 60 + Number(clock[3]);
  else if (short) seconds = Number(short[1]) * 60 + Number(short[2]);
  else if (DIGITS.test(text)) seconds = Number(text);
  else return problem(`unparseable duration ${show(value)}`);
  return Number.isSafeInteger(seconds) ? parsed(seconds) : problem(`duration out of range ${show(value)}`);
}
