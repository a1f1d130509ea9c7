import type { RawConversion } from '../../connectors/sql/index.js';
import { declaredValue, parseDuration } from '../../src/normalize/index.js';
import type { Json } from '../../src/sink/sink.js';

/**
 * The probe every SQL dialect's reading of `raw` is held to (raw-value tests): awkward values a
 * declared column or a call field may meet, each read at `v` and at `n.v` by every conversion, and
 * compared with what the normalizers give.
 */
export const RAW_VALUES: Json[] = [
  'completed',
  '',
  '  spaced  ',
  "it's",
  0,
  -3,
  42,
  1.5,
  9007199254740991,
  2 ** 53 + 2,
  true,
  false,
  null,
  {},
  [1],
  { v: 1 },
  '12',
  '0012',
  '1234567890123456',
  '9007199254740992',
  '-5',
  '1:02:03',
  '61:05',
  '100:00:00',
  '1:60',
  ' 125 ',
  '1:2:3',
  '2025-05-31T23:59:59Z',
  '2025-03-01T10:00:00+02:00',
  '2025-03-01T10:00:00-0530',
  '2025-03-01 10:00:00.999z',
  '2025-03-01T10:00:00',
  '2025-02-29T00:00:00Z',
  '2024-02-29T12:00:00Z',
  '2025-13-01T00:00:00Z',
  '2025-04-31T00:00:00Z',
  '2025-03-01T24:00:00Z',
  'now',
  '2025-03-01T10:00:00Zjunk',
];

export const RAW_CONVERSIONS: RawConversion[] = ['text', 'integer', 'number', 'boolean', 'timestamp', 'duration'];

/** The probe's rows, in order: row `2i` is `{ v: RAW_VALUES[i] }`, row `2i + 1` is `{ n: { v: … } }`. */
export const RAW_PROBES: Json[] = RAW_VALUES.flatMap((value): Json[] => [{ v: value }, { n: { v: value } }]);

/** The select list reading every probe row by every conversion at both paths, as `<conversion>_<depth>`. */
export function rawValueSelects(rawValue: (path: readonly string[], conversion: RawConversion) => string): string[] {
  return RAW_CONVERSIONS.flatMap((conversion) => [['v'], ['n', 'v']].map((path) => `${rawValue(path, conversion)} as "${conversion}_${path.length}"`));
}

function expected(value: Json | undefined, conversion: RawConversion): unknown {
  if (conversion !== 'duration') return declaredValue(value, conversion);
  const result = parseDuration(value);
  return result.ok ? result.value : null;
}

/**
 * Where the database's reading of the probe (rows in probe order, `plain` turning its values into
 * JS form) differs from the normalizers': one line each, [] when none.
 */
export function rawValueMismatches(rows: readonly Record<string, unknown>[], plain: (value: unknown, conversion: RawConversion) => unknown): string[] {
  const mismatches: string[] = [];
  rows.forEach((row, position) => {
    const value = RAW_VALUES[Math.floor(position / 2)];
    const nested = position % 2 === 1;
    for (const conversion of RAW_CONVERSIONS) {
      // `{ v: 1 }` at `v` of the nested record is an object; at `n.v` of the flat one there is nothing.
      const got = plain(row[`${conversion}_${nested ? 2 : 1}`], conversion);
      const want = expected(value, conversion);
      if (got !== want)
        mismatches.push(
          `${conversion} of ${JSON.stringify(value)}${nested ? ' (nested)' : ''}: SQL ${JSON.stringify(got)}, normalizer ${JSON.stringify(want)}`,
        );
      const other = plain(row[`${conversion}_${nested ? 1 : 2}`], conversion);
      if (other !== null) mismatches.push(`${conversion} of ${JSON.stringify(value)}: a path that is not there gave ${JSON.stringify(other)}`);
    }
  });
  return mismatches;
}
