import type { StreamTable } from '../../src/sink.js';

/**
 * Tables of the built-in streams, created by migration `002_built_in_stream_tables`. Changing a
 * column list here needs a new migration as well: migrations that already ran never run again.
 */
export const builtInTables: readonly StreamTable[] = Object.freeze([
  {
    stream: 'calls',
    table: 'calls',
    columns: [
      { name: 'to_number', type: 'text' },
      { name: 'from_number', type: 'text' },
      { name: 'direction', type: 'text' },
      { name: 'recording_url', type: 'text' },
      { name: 'transcription_text', type: 'text' },
      { name: 'created_at', type: 'timestamp' },
    ],
  },
  {
    stream: 'voicemails',
    table: 'voicemails',
    columns: [
      { name: 'to_number', type: 'text' },
      { name: 'from_number', type: 'text' },
      { name: 'transcription_text', type: 'text' },
      { name: 'transcription_summary', type: 'text' },
      { name: 'recording_type', type: 'text' },
      { name: 'recording_url', type: 'text' },
      { name: 'api_recording_url', type: 'text' },
      { name: 'duration_seconds', type: 'integer' },
      { name: 'created_at', type: 'timestamp' },
    ],
  },
  { stream: 'numbers', table: 'numbers', columns: [{ name: 'number', type: 'text' }] },
]);
