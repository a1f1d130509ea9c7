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

/**
 * Offset of `timeZone` from UTC at instant `ms`, in milliseconds (positive east of Greenwich).
 * Throws RangeError for an unknown zone.
 */
export function zoneOffsetMs(ms: number, timeZone: string): number {
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
