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
};

/** A v2 voicemail → `voicemailColumns`. Fails without a `uuid` or a parseable `voicemail_created_at`. */
export const normalizeV2Voicemail: Normalizer = (raw, context) => normalizeRecord(raw, context, rules);
