import type { FieldRule } from './record.js';
import { parseDuration } from './duration.js';
import { parseId } from './id.js';
import { parsed, type Parsed } from './result.js';
import { parseText } from './text.js';
import { parseIsoTimestamp } from './timestamp.js';

/** An optional identifier stored as text: a string or a safe integer (absent → null). */
export function parseIdText(value: unknown): Parsed<string | null> {
  return value === null || value === undefined ? parsed(null) : parseId(value);
}

/**
 * What a v1 call carries besides numbers, direction, recording and transcription (the
 * simulator's shape). Canonical names first; the aliases are other call-tracking APIs' names.
 * The SQL fill of migration `004_call_details` reads the same names: change both together.
 */
export const callDetailFields: readonly FieldRule[] = Object.freeze([
  { column: 'duration_seconds', sources: ['duration_seconds', 'duration', 'call_duration', 'talk_time', 'duration_sec'], parse: parseDuration },
  { column: 'status', sources: ['status', 'call_status', 'disposition'], parse: parseText },
  { column: 'updated_at', sources: ['updated_at', 'modified_at', 'last_updated_at', 'call_updated_at'], parse: parseIsoTimestamp },
  { column: 'tracking_number_id', sources: ['tracking_number_id', 'tracking_id', 'tracker_id', 'call_tracking_number_id'], parse: parseIdText },
]);
