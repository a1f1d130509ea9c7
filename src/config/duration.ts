const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/**
 * Milliseconds for a duration written as `250ms`, `60s`, `5m`, `1.5h`, or a plain number of
 * milliseconds. Undefined for anything else, zero, or a non-integer number of milliseconds.
 */
export function parseDurationMs(value: string | number): number | undefined {
  let ms: number;
  if (typeof value === 'number') {
    ms = value;
  } else {
    const match = DURATION.exec(value.trim());
    if (!match) return undefined;
    ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  }
  return Number.isSafeInteger(ms) && ms > 0 ? ms : undefined;
}
