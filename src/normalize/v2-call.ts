import { parseIdText } from './call-details.js';
import { parseDirection } from './direction.js';
import { parseDuration } from './duration.js';
import { parsePhone } from './phone.js';
import { normalizeRecord, type RecordRules } from './record.js';
import { parseRecordingUrl } from './recording-url.js';
import type { Normalizer } from './result.js';
import { parseText } from './text.js';
import { parseV2Timestamp } from './timestamp.js';

const rules: RecordRules = {
  idSources: ['uuid'],
  fields: [
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
};

/** A v2 call (`call_` prefixes, numeric `uuid`, zoned local timestamps) → `callColumns`. */
export const normalizeV2Call: Normalizer = (raw, context) => normalizeRecord(raw, context, rules);
