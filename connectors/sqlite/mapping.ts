import type { ColumnType } from '../../src/sink/sink.js';
import type { RawConversion } from '../sql/index.js';

/** How a stream column of each type is declared. */
const COLUMN_TYPES: Record<ColumnType, string> = { text: 'text', integer: 'integer', number: 'real', boolean: 'integer', timestamp: 'text' };

/** SQLite's `SqlAdapter.columnType`: STRICT tables know only these, so booleans are 0/1 and timestamps text. */
export function sqliteColumnType(type: ColumnType): string {
  return COLUMN_TYPES[type];
}

/** Only what the config allows in a path (`columns[].from`); checked again here because it becomes SQL text. */
const PATH_KEY = /^[A-Za-z0-9_-]+$/;

function jsonPath(path: readonly string[]): string {
  for (const key of path) if (!PATH_KEY.test(key)) throw new Error(`raw path key ${JSON.stringify(key)} is not ${PATH_KEY.source}`);
  return `'$${path.map((key) => `."${key}"`).join('')}'`;
}

const WHITESPACE = `' ' || char(9) || char(10) || char(13)`;

/** True when `t` is one or more digits (GLOB has no `+`). */
const allDigits = (t: string) => `(${t} <> '' and ${t} not glob '*[^0-9]*')`;

/**
 * `YYYY-MM-DD[T ]HH:MM:SS[.fff][Z|±HH:MM|±HHMM]` on a real calendar day, as `YYYY-MM-DDTHH:MM:SSZ`;
 * strftime gives null for what follows the seconds when it is not a fraction or a zone.
 */
function timestamp(t: string): string {
  const shape = `${t} glob '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9][Tt ][0-2][0-9]:[0-5][0-9]:[0-5][0-9]*'`;
  // SQLite reads `±HH:MM` but not `±HHMM`; a colon is put in. date() rolls 02-30 over, so the day is compared back.
  const zoned = `case when ${t} glob '*[+-][0-9][0-9][0-9][0-9]' then substr(${t}, 1, length(${t}) - 2) || ':' || substr(${t}, -2) else ${t} end`;
  return (
    `case when ${shape} and date(substr(${t}, 1, 10)) = substr(${t}, 1, 10) and substr(${t}, 12, 2) <= '23' ` +
    `then strftime('%Y-%m-%dT%H:%M:%SZ', replace(replace(upper(${zoned}), 'T', ' '), 'Z', '')) end`
  );
}

/** Whole seconds from digits, `H:MM:SS` or `M:SS` (as `parseDuration`). */
function duration(t: string): string {
  const head = (cut: number) => `substr(${t}, 1, length(${t}) - ${cut})`;
  const part = (from: number) => `cast(substr(${t}, ${from}, 2) as integer)`;
  return (
    `case when length(${t}) <= 16 and ${allDigits(t)} then case when cast(${t} as integer) <= 9007199254740991 then cast(${t} as integer) end ` +
    `when ${t} glob '*[0-9]:[0-5][0-9]:[0-5][0-9]' and length(${t}) <= 16 and ${allDigits(head(6))} then cast(${head(6)} as integer) * 3600 + ${part(-5)} * 60 + ${part(-2)} ` +
    `when ${t} glob '*[0-9]:[0-5][0-9]' and length(${t}) <= 18 and ${allDigits(head(3))} then cast(${head(3)} as integer) * 60 + ${part(-2)} end`
  );
}

/** SQLite's {@link SqlAdapter.rawValue}: `json_type` decides, `json_extract` reads. */
export function sqliteRawValue(path: readonly string[], conversion: RawConversion): string {
  const p = jsonPath(path);
  const type = `json_type(raw, ${p})`;
  const value = `json_extract(raw, ${p})`;
  const text = `trim(${value}, ${WHITESPACE})`;
  switch (conversion) {
    case 'text':
      return `case ${type} when 'text' then ${value} when 'integer' then cast(${value} as text) when 'real' then cast(${value} as text) when 'true' then 'true' when 'false' then 'false' end`;
    case 'integer':
      return `case ${type} when 'integer' then case when abs(${value}) <= 9007199254740991 then ${value} end when 'text' then case when length(${value}) <= 15 and ${allDigits(value)} then cast(${value} as integer) end end`;
    case 'number':
      return `case when ${type} in ('integer', 'real') then ${value} end`;
    case 'boolean':
      return `case ${type} when 'true' then 1 when 'false' then 0 end`;
    case 'timestamp':
      return `case ${type} when 'text' then ${timestamp(text)} end`;
    case 'duration':
      return `case ${type} when 'integer' then case when ${value} between 0 and 9007199254740991 then ${value} end when 'text' then ${duration(text)} end`;
  }
}
