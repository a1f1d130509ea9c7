import type { ColumnType } from '../../src/sink/sink.js';
import type { RawConversion } from '../sql/index.js';

/** How a stream column of each type is declared. */
const COLUMN_TYPES: Record<ColumnType, string> = { text: 'text', integer: 'bigint', number: 'double precision', boolean: 'boolean', timestamp: 'timestamptz' };

/** Postgres' `SqlAdapter.columnType`. */
export function postgresColumnType(type: ColumnType): string {
  return COLUMN_TYPES[type];
}

/** Only what the config allows in a path (`columns[].from`); checked again here because it becomes SQL text. */
const PATH_KEY = /^[A-Za-z0-9_-]+$/;

function jsonPath(path: readonly string[]): string {
  for (const key of path) if (!PATH_KEY.test(key)) throw new Error(`raw path key ${JSON.stringify(key)} is not ${PATH_KEY.source}`);
  return `'{${path.join(',')}}'`;
}

const TIMESTAMP = `'^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?$'`;

/**
 * Casts only what cannot fail: Postgres has no "try cast" before 16, and a cast error would
 * stop the migration. Nested CASEs fix the order (AND operands may be evaluated in any order).
 */
function timestamp(t: string): string {
  const lastDay = `extract(day from date_trunc('month', (substr(${t}, 1, 7) || '-01')::date) + interval '1 month - 1 day')`;
  const zoned = `case when ${t} ~ '([Zz]|[+-][0-9]{2}:?[0-9]{2})$' then ${t} else ${t} || 'Z' end`;
  return `case when ${t} ~ ${TIMESTAMP} and substr(${t}, 1, 4) <> '0000' then case when substr(${t}, 9, 2)::int <= ${lastDay} then (${zoned})::timestamptz end end`;
}

/** Whole seconds from digits, `H:MM:SS` or `M:SS` (as `parseDuration`). */
function duration(t: string): string {
  const part = (n: number) => `split_part(${t}, ':', ${n})`;
  return (
    `case when ${t} ~ '^[0-9]{1,16}$' then case when ${t}::bigint <= 9007199254740991 then ${t}::bigint end ` +
    `when ${t} ~ '^[0-9]{1,10}:[0-5][0-9]:[0-5][0-9]$' then ${part(1)}::bigint * 3600 + ${part(2)}::int * 60 + ${part(3)}::int ` +
    `when ${t} ~ '^[0-9]{1,12}:[0-5][0-9]$' then ${part(1)}::bigint * 60 + ${part(2)}::int end`
  );
}

/** An integral JSON number within ±(2^53 − 1) as bigint; `minimum` 0 for durations. */
function exactInteger(number: string, minimum: string): string {
  return `case when ${number} = trunc(${number}) and ${number} between ${minimum} and 9007199254740991 then ${number}::bigint end`;
}

/** Postgres' {@link SqlAdapter.rawValue}: `jsonb_typeof` decides, `#>>` reads the text. */
export function postgresRawValue(path: readonly string[], conversion: RawConversion): string {
  const p = jsonPath(path);
  const type = `jsonb_typeof(raw #> ${p})`;
  const text = `(raw #>> ${p})`;
  const number = `${text}::numeric`;
  const trimmed = `btrim(${text}, e' \\t\\n\\r')`;
  switch (conversion) {
    case 'text':
      return `case when ${type} in ('string', 'number', 'boolean') then ${text} end`;
    case 'integer':
      return `case ${type} when 'number' then ${exactInteger(number, '-9007199254740991')} when 'string' then case when ${text} ~ '^[0-9]{1,15}$' then ${text}::bigint end end`;
    case 'number':
      return `case when ${type} = 'number' then ${text}::double precision end`;
    case 'boolean':
      return `case when ${type} = 'boolean' then ${text}::boolean end`;
    case 'timestamp':
      return `case when ${type} = 'string' then ${timestamp(trimmed)} end`;
    case 'duration':
      return `case ${type} when 'number' then ${exactInteger(number, '0')} when 'string' then ${duration(trimmed)} end`;
  }
}
