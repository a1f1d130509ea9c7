import type { ColumnSpec, ColumnType, ColumnValue } from './column-types.js';
import type { Json } from '../base/json.js';
import { parseIsoTimestamp } from './primitives.js';
import type { Normalizer } from './records.js';

/** A column declared in the config: `{ name, from: 'a.b', type }`, with `from` split at dots. */
export interface DeclaredColumn extends ColumnSpec {
  readonly from: readonly string[];
}

/** Largest integer both JavaScript and the SQL fill read exactly. */
const MAX_EXACT = Number.MAX_SAFE_INTEGER;
const DIGITS = /^[0-9]{1,15}$/;

/** The value at a dotted path of object keys; undefined when any step is missing or not an object. */
export function valueAtPath(raw: Json, path: readonly string[]): Json | undefined {
  let current: Json | undefined = raw;
  for (const key of path) {
    if (current === null || current === undefined || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/**
 * A declared column's value. A value of another shape is null, never a dead letter: the
 * declaration is the user's guess at upstream's fields, and a wrong guess must not drop calls.
 * The SQL fill (`rawValue` of each SQL adapter) follows the same rules for stored rows.
 */
export function declaredValue(value: Json | undefined, type: ColumnType): ColumnValue {
  switch (type) {
    case 'text':
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
    case 'integer':
      if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) <= MAX_EXACT ? value : null;
      return typeof value === 'string' && DIGITS.test(value) ? Number(value) : null;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? Number(value) : null;
    case 'timestamp': {
      if (typeof value !== 'string') return null;
      const result = parseIsoTimestamp(value);
      return result.ok ? result.value : null;
    }
  }
}

/** `normalize` plus the declared columns read from each record's `raw`. */
export function withDeclaredColumns(normalize: Normalizer, columns: readonly DeclaredColumn[]): Normalizer {
  if (columns.length === 0) return normalize;
  return (raw, context) => {
    const result = normalize(raw, context);
    if (!result.ok) return result;
    const fields = { ...result.fields };
    for (const column of columns) fields[column.name] = declaredValue(valueAtPath(raw, column.from), column.type);
    return { ...result, fields };
  };
}
