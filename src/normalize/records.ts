import type { ColumnValue } from './column-types.js';
import type { Json } from '../base/json.js';
import {
  jsonType,
  parsed,
  parseDirection,
  parseDuration,
  parseId,
  parseIdText,
  parseIsoTimestamp,
  parsePhone,
  parseRecordingUrl,
  parseText,
  parseV2Timestamp,
  type Parsed,
} from './primitives.js';

/**
 * What a record normalizer returns. It never throws: a record it cannot turn into v1 form
 * comes back as `{ ok: false }` with a reason that names the upstream field, so the engine can
 * dead-letter it and go on with the batch.
 */
export type NormalizeResult = { ok: true; id: string; fields: Record<string, ColumnValue> } | { ok: false; reason: string };

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

/** How one column is read from an upstream record. */
interface FieldRule {
  readonly column: string;
  /**
   * Upstream field names, canonical first. Later names are aliases seen on other instances;
   * an alias holding an object or array is some other structure and is ignored (it stays in
   * `raw`), while the canonical name is always validated.
   */
  readonly sources: readonly string[];
  readonly parse: (value: unknown, context: NormalizeContext) => Parsed<ColumnValue>;
  /** When true, an absent value (or one parsed to null) fails the record. */
  readonly required?: boolean;
}

interface RecordRules {
  readonly idSources: readonly string[];
  readonly fields: readonly FieldRule[];
  /** Every column null, in rule order: a record's fields start as a copy, one allocation of the final shape. */
  readonly template: Readonly<Record<string, ColumnValue>>;
}

function recordRules(idSources: readonly string[], fields: readonly FieldRule[]): RecordRules {
  return { idSources, fields, template: Object.fromEntries(fields.map((rule) => [rule.column, null])) };
}

/**
 * The value of the first of `sources` that holds one (an alias holding an object or array does not),
 * or undefined. Runs ten times a record: one keyed read per source tried, and no allocation; a
 * reason that needs the field's name asks {@link pickedSource}.
 */
function pick(record: { [key: string]: Json }, sources: readonly string[]): Json | undefined {
  for (let index = 0; index < sources.length; index++) {
    const source = sources[index] as string;
    const value = record[source];
    if (value === null || value === undefined || (index > 0 && typeof value === 'object')) continue;
    // Only an own field counts: `toString` is no field of the record.
    if (Object.hasOwn(record, source)) return value;
  }
  return undefined;
}

/**
 * The field a reason names: the one {@link pick} took its value from (the first own field holding
 * that value, as an earlier one would have been picked), else the canonical name.
 */
function pickedSource(record: { [key: string]: Json }, sources: readonly string[]): string {
  const value = pick(record, sources);
  const at = value === undefined ? -1 : sources.findIndex((source) => Object.hasOwn(record, source) && record[source] === value);
  return sources[at === -1 ? 0 : at] ?? '?';
}

/**
 * Applies `rules` to one raw record: the id first, then every field in order; the first
 * problem fails the record with a reason naming the upstream field. Unknown fields are ignored.
 */
function normalizeRecord(raw: Json, context: NormalizeContext, rules: RecordRules): NormalizeResult {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, reason: `record: expected an object, got ${jsonType(raw)}` };
  }
  const id = parseId(pick(raw, rules.idSources));
  if (!id.ok) return { ok: false, reason: `${pickedSource(raw, rules.idSources)}: ${id.problem}` };
  const fields: Record<string, ColumnValue> = { ...rules.template };
  const rulesOfFields = rules.fields;
  for (let index = 0; index < rulesOfFields.length; index++) {
    const rule = rulesOfFields[index] as FieldRule;
    const result = rule.parse(pick(raw, rule.sources), context);
    if (!result.ok) return { ok: false, reason: `${pickedSource(raw, rule.sources)}: ${result.problem}` };
    if (rule.required && result.value === null) return { ok: false, reason: `${pickedSource(raw, rule.sources)}: missing` };
    fields[rule.column] = result.value;
  }
  return { ok: true, id: id.value, fields };
}

/**
 * What a walk reads of a record without normalizing it (its progress guards, the order of a list,
 * a high-water mark): the id and `created_at` that normalizing gives it, each read alone by its one
 * rule (its sources, its parser), so the two readings cannot drift apart. Undefined where that rule
 * gives none (or the record is no object).
 */
export interface RecordKeys {
  id(raw: Json): string | undefined;
  createdAt(raw: Json, context: NormalizeContext): string | undefined;
}

function keysOf(rules: RecordRules): RecordKeys {
  const rule = rules.fields.find((field) => field.column === 'created_at');
  return {
    id: (raw) => {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
      const id = parseId(pick(raw, rules.idSources));
      return id.ok ? id.value : undefined;
    },
    createdAt: (raw, context) => {
      if (rule === undefined || raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
      const result = rule.parse(pick(raw, rule.sources), context);
      return result.ok && typeof result.value === 'string' ? result.value : undefined;
    },
  };
}

/**
 * What a v1 call carries besides numbers, direction, recording and transcription (the
 * simulator's shape). Canonical names first; the aliases are other call-tracking APIs' names.
 * The SQL fill of migration `004_call_details` reads the same names: change both together.
 */
const callDetailFields: readonly FieldRule[] = Object.freeze([
  { column: 'duration_seconds', sources: ['duration_seconds', 'duration', 'call_duration', 'talk_time', 'duration_sec'], parse: parseDuration },
  { column: 'status', sources: ['status', 'call_status', 'disposition'], parse: parseText },
  { column: 'updated_at', sources: ['updated_at', 'modified_at', 'last_updated_at', 'call_updated_at'], parse: parseIsoTimestamp },
  { column: 'tracking_number_id', sources: ['tracking_number_id', 'tracking_id', 'tracker_id', 'call_tracking_number_id'], parse: parseIdText },
]);

// v1 calls

/**
 * v1 call field names are not in the specification: the canonical names are what the
 * reference simulator serves; the aliases are names other call-tracking APIs use.
 */
const v1CallRules = recordRules(
  ['id', 'uuid', 'call_id'],
  [
    { column: 'to_number', sources: ['to_number', 'to', 'called_number', 'destination_number', 'call_to_number'], parse: parsePhone },
    { column: 'from_number', sources: ['from_number', 'from', 'caller_number', 'calling_number', 'call_from_number'], parse: parsePhone },
    { column: 'direction', sources: ['direction', 'call_direction'], parse: parseDirection },
    {
      column: 'recording_url',
      sources: ['recording_url', 'recording_link', 'call_recording_url'],
      parse: (value, context) => parseRecordingUrl(value, context.recordingsBaseUrl),
    },
    { column: 'transcription_text', sources: ['transcription_text', 'transcription', 'transcript', 'call_transcription_text'], parse: parseText },
    { column: 'created_at', sources: ['created_at', 'started_at', 'start_time', 'call_created_at'], parse: parseIsoTimestamp, required: true },
    ...callDetailFields,
  ],
);

/** A v1 call → `callColumns`. Fails without an id or a parseable `created_at`. */
export const normalizeV1Call: Normalizer = (raw, context) => normalizeRecord(raw, context, v1CallRules);
/** A v1 call's id and `created_at` as {@link normalizeV1Call} gives them, read alone. */
export const v1CallKeys = keysOf(v1CallRules);

// v2 calls

const v2CallRules = recordRules(
  ['uuid'],
  [
    { column: 'to_number', sources: ['call_to_number'], parse: parsePhone },
    { column: 'from_number', sources: ['call_from_number'], parse: parsePhone },
    { column: 'direction', sources: ['call_direction'], parse: parseDirection },
    { column: 'recording_url', sources: ['call_recording_url'], parse: (value, context) => parseRecordingUrl(value, context.recordingsBaseUrl) },
    { column: 'transcription_text', sources: ['call_transcription_text'], parse: parseText },
    { column: 'created_at', sources: ['call_created_at'], parse: (value, context) => parseV2Timestamp(value, context.v2TimeZone), required: true },
    // Not in the spec's v2 call record; read when an instance sends them (v2 durations are `HH:MM:SS`).
    { column: 'duration_seconds', sources: ['call_duration', 'call_duration_seconds'], parse: parseDuration },
    { column: 'status', sources: ['call_status'], parse: parseText },
    { column: 'updated_at', sources: ['call_updated_at'], parse: (value, context) => parseV2Timestamp(value, context.v2TimeZone) },
    { column: 'tracking_number_id', sources: ['call_tracking_number_id'], parse: parseIdText },
  ],
);

/** A v2 call (`call_` prefixes, numeric `uuid`, zoned local timestamps) → `callColumns`. */
export const normalizeV2Call: Normalizer = (raw, context) => normalizeRecord(raw, context, v2CallRules);
/** A v2 call's id and `created_at` as {@link normalizeV2Call} gives them, read alone. */
export const v2CallKeys = keysOf(v2CallRules);

// v2 voicemails

const v2VoicemailRules = recordRules(
  ['uuid'],
  [
    { column: 'to_number', sources: ['voicemail_to_number'], parse: parsePhone },
    { column: 'from_number', sources: ['voicemail_from_number'], parse: parsePhone },
    { column: 'transcription_text', sources: ['voicemail_transcription_text'], parse: parseText },
    { column: 'transcription_summary', sources: ['voicemail_transcription_summary'], parse: parseText },
    { column: 'recording_type', sources: ['voicemail_recording_type'], parse: parseText },
    {
      column: 'recording_url',
      sources: ['voicemail_recording_url'],
      parse: (value, context) => parseRecordingUrl(value, context.recordingsBaseUrl),
    },
    {
      column: 'api_recording_url',
      sources: ['voicemail_api_recording_url'],
      parse: (value, context) => parseRecordingUrl(value, context.recordingsBaseUrl),
    },
    { column: 'duration_seconds', sources: ['voicemail_duration'], parse: parseDuration },
    {
      column: 'created_at',
      sources: ['voicemail_created_at'],
      parse: (value, context) => parseV2Timestamp(value, context.v2TimeZone),
      required: true,
    },
  ],
);

/** A v2 voicemail → `voicemailColumns`. Fails without a `uuid` or a parseable `voicemail_created_at`. */
export const normalizeV2Voicemail: Normalizer = (raw, context) => normalizeRecord(raw, context, v2VoicemailRules);
/** A v2 voicemail's id and `created_at` as {@link normalizeV2Voicemail} gives them, read alone. */
export const v2VoicemailKeys = keysOf(v2VoicemailRules);

// v1 tracked numbers

const v1NumberRules = recordRules(
  ['id', 'uuid', 'number_id'],
  [{ column: 'number', sources: ['number', 'phone_number', 'e164', 'tracking_number'], parse: parsePhone }],
);

/** A v1 tracked number → `numberColumns`; its other fields stay in `raw`. */
export const normalizeV1Number: Normalizer = (raw, context) => normalizeRecord(raw, context, v1NumberRules);
/** A v1 tracked number's id as {@link normalizeV1Number} gives it (it has no `created_at`). */
export const v1NumberKeys = keysOf(v1NumberRules);

// config-declared v1 lists

/**
 * A normalizer for a config-declared v1 list endpoint (SMS, forms, ...): the id from
 * `idField`, `created_at` from `createdAtField` (null when the field is not configured or
 * absent; a present but unparseable value fails the record). Columns: `genericColumns`.
 */
export function normalizeV1Generic(idField: string, createdAtField?: string): Normalizer {
  const rules = genericRules(idField, createdAtField);
  return (raw, context) => normalizeRecord(raw, context, rules);
}

/** A config-declared record's id and `created_at` as {@link normalizeV1Generic} gives them, read alone. */
export function v1GenericKeys(idField: string, createdAtField?: string): RecordKeys {
  return keysOf(genericRules(idField, createdAtField));
}

function genericRules(idField: string, createdAtField: string | undefined): RecordRules {
  return recordRules(
    [idField],
    [
      createdAtField === undefined
        ? { column: 'created_at', sources: ['created_at'], parse: () => parsed(null) }
        : { column: 'created_at', sources: [createdAtField], parse: parseIsoTimestamp },
    ],
  );
}
