/**
 * The field primitives every record normalizer is made of: one pure function per kind of value
 * (id, phone, text, direction, duration, recording URL, timestamp), each returning `Parsed`, never
 * throwing. A problem does not name the field; the record normalizer (`records.ts`) adds it.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { JsonObject } from '../base/json.js';
import { zoneOffsetMs } from './zone-offset.js';

/** Outcome of one primitive; `problem` does not name the field, the record normalizer adds it. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

const PARSED_NULL: Parsed<null> = Object.freeze({ ok: true, value: null });
/** A success; null (most absent fields) is one shared object, as records are normalized by the million. */
export const parsed = <T>(value: T): Parsed<T> => (value === null ? (PARSED_NULL as Parsed<T>) : { ok: true, value });
const problem = (text: string): Parsed<never> => ({ ok: false, problem: text });

const SHOWN_LENGTH = 60;

/** Quotes a value for a reason, short enough for a log line and a dead-letter row. */
function show(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = JSON.stringify(value.length > SHOWN_LENGTH ? `${value.slice(0, SHOWN_LENGTH)}…` : value);
  else if (value === null || typeof value !== 'object') text = String(value);
  else text = Array.isArray(value) ? 'an array' : 'an object';
  return text;
}

/** The JSON type name used in reasons: `expected a string, got an object`. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value === 'string' ? 'a string' : typeof value;
}

/** True for a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The key of the object `parseJsonExact` (the upstream reader) puts in place of a JSON number it
 * would read as a different integer (`100000016.0000000001` reads as `100000016`).
 */
export const INEXACT_NUMBER_KEY = '$inexactNumber';

/** The literal text of a value `parseJsonExact` marked, or undefined for any other value. */
export function inexactNumberText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const text = (value as Record<string, unknown>)[INEXACT_NUMBER_KEY];
  return typeof text === 'string' && Object.keys(value).length === 1 ? text : undefined;
}

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

/** An optional identifier stored as text: a string or a safe integer (absent → null). */
export function parseIdText(value: unknown): Parsed<string | null> {
  return value === null || value === undefined ? parsed(null) : parseId(value);
}

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

const PARSED_INBOUND: Parsed<'inbound'> = Object.freeze({ ok: true, value: 'inbound' });
const PARSED_OUTBOUND: Parsed<'outbound'> = Object.freeze({ ok: true, value: 'outbound' });

/** `inbound` / `outbound` (any case); other strings and absent values → null; non-strings are problems. */
export function parseDirection(value: unknown): Parsed<'inbound' | 'outbound' | null> {
  if (value === null || value === undefined) return parsed(null);
  if (typeof value !== 'string') return problem(`expected a string, got ${jsonType(value)}`);
  // Nearly every value is already one of the two: no case-folded copy, one shared result each.
  const direction = value === 'inbound' || value === 'outbound' ? value : value.trim().toLowerCase();
  return direction === 'inbound' ? PARSED_INBOUND : direction === 'outbound' ? PARSED_OUTBOUND : parsed(null);
}

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

const CLOCK = /^(\d+):([0-5]\d):([0-5]\d)$/;
const MINUTES_SECONDS = /^(\d+):([0-5]\d)$/;

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

const ABSOLUTE = /^https?:\/\//i;

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * A recording link as an absolute URL. Absolute http(s) URLs are kept; a path starting with
 * one `/` (v2's `/<user-folder>/recordings/...`) is joined to `baseUrl` with exactly one slash
 * between them. Absent or empty → null. Anything else (other schemes, `//host`, bare words)
 * is a problem.
 */
export function parseRecordingUrl(value: unknown, baseUrl: string): Parsed<string | null> {
  if (value === null || value === undefined || value === '') return parsed(null);
  if (typeof value !== 'string') return problem(`expected a URL or path, got ${jsonType(value)}`);
  const text = value.trim();
  // Text starting `http://` or `https://` parses with that scheme or not at all: no URL object needed.
  if (ABSOLUTE.test(text)) return URL.canParse(text) ? parsed(text) : problem(`invalid URL ${show(value)}`);
  if (!text.startsWith('/') || text.startsWith('//')) return problem(`not an absolute URL or /path: ${show(value)}`);
  const joined = `${baseUrl.replace(/\/+$/, '')}${text}`;
  return isHttpUrl(joined) ? parsed(joined) : problem(`cannot join ${show(value)} to the recordings base URL`);
}

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
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** The two digits at `at` as a number, or -1 when either is not a digit. */
function twoDigits(text: string, at: number): number {
  const tens = text.charCodeAt(at) - DIGIT_0;
  const ones = text.charCodeAt(at + 1) - DIGIT_0;
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : -1;
}

/**
 * True when `text` is already in the output form and names a real instant. Most v1 values come
 * that way, and the general path (regex, Date, re-format) costs several times more per record;
 * two a record, so character codes only.
 */
function isCanonicalUtc(text: string): boolean {
  if (text.length !== 20 || text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d || text.charCodeAt(10) !== 0x54) return false;
  if (text.charCodeAt(13) !== 0x3a || text.charCodeAt(16) !== 0x3a || text.charCodeAt(19) !== 0x5a) return false;
  const century = twoDigits(text, 0);
  const yearOfCentury = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (century < 0 || yearOfCentury < 0 || month < 1 || month > 12 || day < 1) return false;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  const year = century * 100 + yearOfCentury;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0));
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
