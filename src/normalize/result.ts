import type { ColumnValue, Json } from '../sink.js';

/**
 * What a record normalizer returns. It never throws: a record it cannot turn into v1 form
 * comes back as `{ ok: false }` with a reason that names the upstream field, so the engine can
 * dead-letter it and go on with the batch.
 */
export type NormalizeResult =
  | { ok: true; id: string; fields: Record<string, ColumnValue> }
  | { ok: false; reason: string };

/** Per-business settings a normalizer needs; pure data, no clients. */
export interface NormalizeContext {
  /** Prefix for v2 relative recording paths (no trailing slash needed). */
  recordingsBaseUrl: string;
  /**
   * IANA zone the v2 `YYYY-MM-DD HH:MM:SS` timestamps are written in.
   * @defaultValue 'UTC' (set by the config schema)
   */
  v2TimeZone: string;
}

/** Turns one upstream record (as parsed JSON) into v1 form. */
export type Normalizer = (raw: Json, context: NormalizeContext) => NormalizeResult;

/** Outcome of one primitive; `problem` does not name the field, the record normalizer adds it. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

const PARSED_NULL: Parsed<null> = Object.freeze({ ok: true, value: null });
/** A success; null (most absent fields) is one shared object, as records are normalized by the million. */
export const parsed = <T>(value: T): Parsed<T> => (value === null ? (PARSED_NULL as Parsed<T>) : { ok: true, value });
export const problem = (text: string): Parsed<never> => ({ ok: false, problem: text });

const SHOWN_LENGTH = 60;

/** Quotes a value for a reason, short enough for a log line and a dead-letter row. */
export function show(value: unknown): string {
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
