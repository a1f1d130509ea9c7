import { DuckDBTypeId, type DuckDBAppender } from '@duckdb/node-api';
import type { ColumnType } from '../../src/sink/sink.js';
import type { RawConversion } from '../sql/index.js';

/** How a stream column of each type is declared. `raw` is VARCHAR (see `target.ts`), timestamps TIMESTAMPTZ in UTC. */
const COLUMN_TYPES: Record<ColumnType, string> = { text: 'varchar', integer: 'bigint', number: 'double', boolean: 'boolean', timestamp: 'timestamptz' };

/** DuckDB's `SqlAdapter.columnType`. */
export function duckdbColumnType(type: ColumnType): string {
  return COLUMN_TYPES[type];
}

/** Only what the config allows in a path (`columns[].from`); checked again here because it becomes SQL text. */
const PATH_KEY = /^[A-Za-z0-9_-]+$/;

function jsonPath(path: readonly string[]): string {
  for (const key of path) if (!PATH_KEY.test(key)) throw new Error(`raw path key ${JSON.stringify(key)} is not ${PATH_KEY.source}`);
  return `'$${path.map((key) => `."${key}"`).join('')}'`;
}

const TIMESTAMP = `'[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?'`;
const NUMBER_TYPES = `('BIGINT', 'UBIGINT', 'DOUBLE')`;

/** `YYYY-MM-DD[T ]HH:MM:SS[.fff][Z|±HH:MM|±HHMM]` on a real calendar day (try_cast refuses 02-30), UTC when no zone is given; upper-cased, as DuckDB reads no `t` or `z`. */
function timestamp(t: string): string {
  const zoned = `case when regexp_matches(${t}, '([Zz]|[+-][0-9]{2}:?[0-9]{2})$') then ${t} else ${t} || 'Z' end`;
  return `case when regexp_full_match(${t}, ${TIMESTAMP}) and substr(${t}, 1, 4) <> '0000' then try_cast(upper(${zoned}) as timestamptz) end`;
}

/** Whole seconds from digits, `H:MM:SS` or `M:SS` (as `parseDuration`). */
function duration(t: string): string {
  const part = (n: number) => `try_cast(split_part(${t}, ':', ${n}) as bigint)`;
  return (
    `case when regexp_full_match(${t}, '[0-9]{1,16}') then case when try_cast(${t} as hugeint) <= 9007199254740991 then try_cast(${t} as bigint) end ` +
    `when regexp_full_match(${t}, '[0-9]{1,10}:[0-5][0-9]:[0-5][0-9]') then ${part(1)} * 3600 + ${part(2)} * 60 + ${part(3)} ` +
    `when regexp_full_match(${t}, '[0-9]{1,12}:[0-5][0-9]') then ${part(1)} * 60 + ${part(2)} end`
  );
}

/** An integral JSON number within ±(2^53 − 1) as bigint; `minimum` 0 for durations. */
function exactInteger(text: string, minimum: string): string {
  const number = `try_cast(${text} as double)`;
  return `case when ${number} = trunc(${number}) and ${number} between ${minimum} and 9007199254740991 then try_cast(${number} as bigint) end`;
}

/** DuckDB's {@link SqlAdapter.rawValue}: `json_type` decides, `json_extract_string` reads; every cast is a `try_cast`. */
export function duckdbRawValue(path: readonly string[], conversion: RawConversion): string {
  const p = jsonPath(path);
  const type = `json_type(raw, ${p})`;
  const text = `json_extract_string(raw, ${p})`;
  const trimmed = `trim(${text}, ' ' || chr(9) || chr(10) || chr(13))`;
  switch (conversion) {
    case 'text':
      return `case when ${type} in ('VARCHAR', 'BIGINT', 'UBIGINT', 'DOUBLE', 'BOOLEAN') then ${text} end`;
    case 'integer':
      return `case when ${type} in ${NUMBER_TYPES} then ${exactInteger(text, '-9007199254740991')} when ${type} = 'VARCHAR' then case when regexp_full_match(${text}, '[0-9]{1,15}') then try_cast(${text} as bigint) end end`;
    case 'number':
      return `case when ${type} in ${NUMBER_TYPES} then try_cast(${text} as double) end`;
    case 'boolean':
      return `case when ${type} = 'BOOLEAN' then ${text} = 'true' end`;
    case 'timestamp':
      return `case when ${type} = 'VARCHAR' then ${timestamp(trimmed)} end`;
    case 'duration':
      return `case when ${type} in ${NUMBER_TYPES} then ${exactInteger(text, '0')} when ${type} = 'VARCHAR' then ${duration(trimmed)} end`;
  }
}

/** Appends one value to the appender's current row. */
export type AppendValue = (appender: DuckDBAppender, value: unknown) => void;

/**
 * A value DuckDB should convert, or refuse in its own words ("Could not convert string
 * 'forty-two' to INT64"): the appender casts VARCHAR to the column's type as it appends.
 */
const asText: AppendValue = (appender, value) => appender.appendVarchar(typeof value === 'string' ? value : JSON.stringify(value));

/**
 * How a value of a record row (`rowValues` of connectors/sql) is appended to a column of DuckDB's
 * type: the JS type that fits as itself, anything else as text for DuckDB to cast or refuse.
 * A fractional number for a BIGINT goes as text, so it is refused rather than rounded.
 */
export function appendValueFor(typeId: DuckDBTypeId): AppendValue {
  const typed = ((): AppendValue => {
    switch (typeId) {
      case DuckDBTypeId.BIGINT:
        return (appender, value) => (Number.isSafeInteger(value) ? appender.appendBigInt(BigInt(value as number)) : asText(appender, value));
      case DuckDBTypeId.DOUBLE:
        return (appender, value) => (typeof value === 'number' ? appender.appendDouble(value) : asText(appender, value));
      case DuckDBTypeId.BOOLEAN:
        return (appender, value) => (typeof value === 'boolean' ? appender.appendBoolean(value) : asText(appender, value));
      default:
        return asText;
    }
  })();
  return (appender, value) => (value === null || value === undefined ? appender.appendNull() : typed(appender, value));
}
