import type { ColumnType } from '../../src/sink/sink.js';
import type { RawConversion } from '../sql/index.js';

/**
 * How a stream column of each type is declared. Timestamps are the records' own ISO-8601 UTC text
 * (`YYYY-MM-DDTHH:MM:SSZ`, as SQLite keeps them): MySQL's DATETIME refuses the `Z`, and text keeps
 * exactly what the normalizer gave; it sorts in time order.
 */
const COLUMN_TYPES: Record<ColumnType, string> = { text: 'longtext', integer: 'bigint', number: 'double', boolean: 'boolean', timestamp: 'varchar(32)' };

/** MySQL's `SqlAdapter.columnType`; the table's default collation (utf8mb4_bin) applies to text. */
export function mysqlColumnType(type: ColumnType): string {
  return COLUMN_TYPES[type];
}

/** Only what the config allows in a path (`columns[].from`); checked again here because it becomes SQL text. */
const PATH_KEY = /^[A-Za-z0-9_-]+$/;

function jsonPath(path: readonly string[]): string {
  for (const key of path) if (!PATH_KEY.test(key)) throw new Error(`raw path key ${JSON.stringify(key)} is not ${PATH_KEY.source}`);
  return `'$${path.map((key) => `."${key}"`).join('')}'`;
}

/** JSON_TYPE's names of a number: MariaDB says INTEGER or DOUBLE, MySQL 8 also UNSIGNED INTEGER and DECIMAL. */
const NUMBER_TYPES = `('INTEGER', 'UNSIGNED INTEGER', 'DOUBLE', 'DECIMAL')`;

const TIMESTAMP = `'^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?$'`;

/**
 * `YYYY-MM-DDTHH:MM:SSZ` of a well-formed timestamp on a real calendar day, else null. Nested
 * CASEs convert only what passed the checks: in an UPDATE, strict mode makes a conversion warning
 * an error, and a migration filling stored rows must not fail. The offset is subtracted as
 * minutes (CONVERT_TZ leaves values outside TIMESTAMP's 1970–2038 unconverted).
 */
function timestamp(t: string): string {
  const lastDay = `day(last_day(concat(substr(${t}, 1, 7), '-01')))`;
  // No match is NULL on MySQL and '' on MariaDB.
  const zone = `nullif(regexp_substr(${t}, '[+-][0-9]{2}:?[0-9]{2}$'), '')`;
  const minutes = `case when ${zone} is null then 0 else (case when ${zone} like '-%' then -1 else 1 end) * (cast(substr(${zone}, 2, 2) as signed) * 60 + cast(right(${zone}, 2) as signed)) end`;
  const local = `cast(concat(substr(${t}, 1, 10), ' ', substr(${t}, 12, 8)) as datetime)`;
  return (
    `case when ${t} regexp ${TIMESTAMP} and substr(${t}, 1, 4) <> '0000' then ` +
    `case when cast(substr(${t}, 9, 2) as signed) <= ${lastDay} then date_format(${local} - interval (${minutes}) minute, '%Y-%m-%dT%H:%i:%sZ') end end`
  );
}

/** Whole seconds from digits, `H:MM:SS` or `M:SS` (as `parseDuration`). */
function duration(t: string): string {
  const part = (n: number) => `cast(substring_index(substring_index(${t}, ':', ${n}), ':', -1) as signed)`;
  return (
    `case when ${t} regexp '^[0-9]{1,16}$' then case when cast(${t} as unsigned) <= 9007199254740991 then cast(${t} as signed) end ` +
    `when ${t} regexp '^[0-9]{1,10}:[0-5][0-9]:[0-5][0-9]$' then ${part(1)} * 3600 + ${part(2)} * 60 + ${part(3)} ` +
    `when ${t} regexp '^[0-9]{1,12}:[0-5][0-9]$' then ${part(1)} * 60 + ${part(2)} end`
  );
}

/** An integral JSON number within ±(2^53 − 1) as bigint; `signed` false for durations. */
function exactInteger(text: string, signed: boolean): string {
  const whole = `cast(substring_index(${text}, '.', 1) as signed)`;
  const shape = signed ? `'^-?[0-9]{1,16}([.]0+)?$'` : `'^[0-9]{1,16}([.]0+)?$'`;
  return `case when ${text} regexp ${shape} then case when abs(${whole}) <= 9007199254740991 then ${whole} end end`;
}

/**
 * MySQL's {@link SqlAdapter.rawValue} on `raw` kept as LONGTEXT: `json_type` decides,
 * `json_unquote(json_extract())` reads the text (both MySQL 8 and MariaDB read JSON from text).
 */
export function mysqlRawValue(path: readonly string[], conversion: RawConversion): string {
  const p = jsonPath(path);
  const type = `json_type(json_extract(raw, ${p}))`;
  const text = `json_unquote(json_extract(raw, ${p}))`;
  const trimmed = `regexp_replace(${text}, '^[ \\t\\n\\r]+|[ \\t\\n\\r]+$', '')`;
  switch (conversion) {
    case 'text':
      return `case when ${type} in ('STRING', 'BOOLEAN') or ${type} in ${NUMBER_TYPES} then ${text} end`;
    case 'integer':
      return `case when ${type} in ${NUMBER_TYPES} then ${exactInteger(text, true)} when ${type} = 'STRING' then case when ${text} regexp '^[0-9]{1,15}$' then cast(${text} as signed) end end`;
    case 'number':
      return `case when ${type} in ${NUMBER_TYPES} then ${text} + 0e0 end`;
    case 'boolean':
      return `case when ${type} = 'BOOLEAN' then ${text} = 'true' end`;
    case 'timestamp':
      return `case when ${type} = 'STRING' then ${timestamp(trimmed)} end`;
    case 'duration':
      return `case when ${type} in ${NUMBER_TYPES} then ${exactInteger(text, false)} when ${type} = 'STRING' then ${duration(trimmed)} end`;
  }
}
