const formatters = new Map<string, Intl.DateTimeFormat>();

// Building a DateTimeFormat costs far more than formatting; records of one business share a zone.
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

const HOUR_MS = 3_600_000;
// Bounds the memo: ~170 days of hours per zone, then that zone starts afresh.
const MAX_HOURS_PER_ZONE = 4096;
/** Per zone, per UTC hour: the offset throughout that hour, or NaN for an hour the offset changes in. */
const hourOffsets = new Map<string, Map<number, number>>();

/**
 * Offset of `timeZone` from UTC at instant `ms`, in milliseconds (positive east of Greenwich).
 * Throws RangeError for an unknown zone.
 *
 * Memoized per (zone, UTC hour): an idle poll normalizes the same page again and again, and one
 * Intl call per timestamp was half of normalizing. An hour counts as constant only when its first
 * and last second have the same offset; an hour with a change in it (zones that change at :30 or
 * :45 UTC, LMT offsets with seconds) is computed exactly every time. That relies on no zone
 * changing its offset twice within one hour and back, which no tz database rule does.
 */
export function zoneOffsetMs(ms: number, timeZone: string): number {
  const hour = Math.floor(ms / HOUR_MS);
  let hours = hourOffsets.get(timeZone);
  const known = hours?.get(hour);
  if (known !== undefined) return Number.isNaN(known) ? exactOffsetMs(ms, timeZone) : known;
  const first = exactOffsetMs(hour * HOUR_MS, timeZone);
  const last = exactOffsetMs(hour * HOUR_MS + HOUR_MS - 1000, timeZone);
  if (hours === undefined || hours.size >= MAX_HOURS_PER_ZONE) {
    hours = new Map();
    hourOffsets.set(timeZone, hours);
  }
  hours.set(hour, first === last ? first : Number.NaN);
  return first === last ? first : exactOffsetMs(ms, timeZone);
}

function exactOffsetMs(ms: number, timeZone: string): number {
  const instant = Math.floor(ms / 1000) * 1000;
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(instant)) parts[part.type] = part.value;
  const yearInEra = Number(parts.year);
  const year = parts.era === 'BC' || parts.era === 'B' ? 1 - yearInEra : yearInEra;
  const date = new Date(0);
  date.setUTCFullYear(year, Number(parts.month) - 1, Number(parts.day));
  date.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second), 0);
  return date.getTime() - instant;
}

/** True when Intl knows the IANA zone name. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}
