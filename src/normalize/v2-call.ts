import { parseDirection } from './direction.js';
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
  ],
};

/** A v2 call (`call_` prefixes, numeric `uuid`, zoned local timestamps) → `callColumns`. */
export const normalizeV2Call: Normalizer = (raw, context) => normalizeRecord(raw, context, rules);
