import { callDetailFields } from './call-details.js';
import { parseDirection } from './direction.js';
import { parsePhone } from './phone.js';
import { normalizeRecord, type RecordRules } from './record.js';
import { parseRecordingUrl } from './recording-url.js';
import type { Normalizer } from './result.js';
import { parseText } from './text.js';
import { parseIsoTimestamp } from './timestamp.js';

/**
 * v1 call field names are not in the specification: the canonical names are what the
 * reference simulator serves; the aliases are names other call-tracking APIs use.
 */
const rules: RecordRules = {
  idSources: ['id', 'uuid', 'call_id'],
  fields: [
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
};

/** A v1 call → `callColumns`. Fails without an id or a parseable `created_at`. */
export const normalizeV1Call: Normalizer = (raw, context) => normalizeRecord(raw, context, rules);
