import { jsonType, parsed, problem, show, type Parsed } from './result.js';
import { zoneOffsetMs } from './zone-offset.js';

const V2_LOCAL = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/i;
const OUTPUT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const DAY_MS = 86_400_000;

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function fieldsOf(match: RegExpExecArray): Fields {
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  return { year, month, day, hour, minute, second };
}

/** Milliseconds since the epoch for wall-clock fields read as UTC, or undefined for impossible dates. */
function utcMs(f: Fields): number | undefined {
  if (f.month < 1 || f.month > 12 || f.day < 1 || f.hour > 23 || f.minute > 59 || f.second > 59) return undefined;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0..99 to 19xx.
  date.setUTCFullYear(f.year, f.month - 1, f.day);
  date.setUTCHours(f.hour, f.minute, f.second, 0);
  return date.getUTCDate() === f.day && date.getUTCMonth() === f.month - 1 ? date.getTime() : undefined;
}

/** Epoch milliseconds as the stored timestamp form `YYYY-MM-DDTHH:MM:SSZ` (milliseconds dropped). */
export function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function format(ms: number, original: unknown): Parsed<string> {
  const text = Number.isFinite(ms) ? isoSeconds(ms) : '';
  return OUTPUT.test(text) ? parsed(text) : problem(`out of range ${show(original)}`);
}

/**
 * The instant a wall-clock time names in `timeZone`. Ambiguous times (the repeated hour when
 * clocks go back) resolve to the earlier instant; times skipped when clocks go forward are
 * shifted forward by the gap. That is Temporal's `compatible` disambiguation.
 */
function zonedToUtc(localAsUtc: number, timeZone: string): number {
  const before = zoneOffsetMs(localAsUtc - DAY_MS, timeZone);
  const after = zoneOffsetMs(localAsUtc + DAY_MS, timeZone);
  const valid = [before, after].map((offset) => localAsUtc - offset).filter((t) => zoneOffsetMs(t, timeZone) === localAsUtc - t);
  return valid.length > 0 ? Math.min(...valid) : localAsUtc - before;
}

function parseIsoMatch(match: RegExpExecArray, original: unknown): Parsed<string> {
  const local = utcMs(fieldsOf(match));
  if (local === undefined) return problem(`impossible date ${show(original)}`);
  const zone = (match[7] ?? 'Z').toUpperCase();
  if (zone === 'Z') return format(local, original);
  const digits = zone.replace(':', '');
  const hours = Number(digits.slice(1, 3));
  const minutes = Number(digits.slice(3, 5));
  if (hours > 23 || minutes > 59) return problem(`impossible offset ${show(original)}`);
  const sign = digits.startsWith('-') ? -1 : 1;
  return format(local - sign * (hours * 60 + minutes) * 60_000, original);
}

const DIGIT_0 = 48;
const DIGIT_POSITIONS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18] as const;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) value = value * 10 + text.charCodeAt(i) - DIGIT_0;
  return value;
}

/**
 * True when `text` is already in the output form and names a real instant. Most v1 values come
 * that way, and the general path (regex, Date, re-format) costs several times more per record.
 */
function isCanonicalUtc(text: string): boolean {
  if (text.length !== 20 || text[4] !== '-' || text[7] !== '-' || text[10] !== 'T') return false;
  if (text[13] !== ':' || text[16] !== ':' || text[19] !== 'Z') return false;
  for (const position of DIGIT_POSITIONS) {
    const code = text.charCodeAt(position) - DIGIT_0;
    if (code < 0 || code > 9) return false;
  }
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const monthDays = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return day <= monthDays && digitsAt(text, 11, 2) <= 23 && digitsAt(text, 14, 2) <= 59 && digitsAt(text, 17, 2) <= 59;
}

/**
 * A v1 timestamp: ISO 8601 with `Z` or an offset, optional fractional seconds (truncated),
 * `T` or a space between date and time. No designator means UTC, as v1 documents all its
 * timestamps in UTC. Absent or empty → null. Returns `YYYY-MM-DDTHH:MM:SSZ`.
 */
export function parseIsoTimestamp(value: unknown): Parsed<string | null> {
  if (value === null || value === undefined || value === '') return parsed(null);
  if (typeof value !== 'string') return problem(`expected an ISO 8601 string, got ${jsonType(value)}`);
  // Anything the fast check refuses, valid or not, takes the general path, which words the problem.
  if (isCanonicalUtc(value)) return parsed(value);
  const match = ISO.exec(value.trim());
  return match ? parseIsoMatch(match, value) : problem(`unparseable ${show(value)}`);
}

/**
 * A v2 timestamp `YYYY-MM-DD HH:MM:SS`, read as wall-clock time in the IANA `timeZone`
 * (DST handled through Intl). A value that carries its own `Z` or offset is taken as such.
 * Absent or empty → null. Returns `YYYY-MM-DDTHH:MM:SSZ`.
 */
export function parseV2Timestamp(value: unknown, timeZone: string): Parsed<string | null> {
  if (value === null || value === undefined || value === '') return parsed(null);
  if (typeof value !== 'string') return problem(`expected "YYYY-MM-DD HH:MM:SS", got ${jsonType(value)}`);
  const text = value.trim();
  const local = V2_LOCAL.exec(text);
  if (!local) {
    const iso = ISO.exec(text);
    return iso?.[7] ? parseIsoMatch(iso, value) : problem(`unparseable ${show(value)}`);
  }
  const localAsUtc = utcMs(fieldsOf(local));
  if (localAsUtc === undefined) return problem(`unparseable ${show(value)}`);
  try {
    return format(zonedToUtc(localAsUtc, timeZone), value);
  } catch {
    return problem(`unknown time zone ${show(timeZone)}`);
  }
}
