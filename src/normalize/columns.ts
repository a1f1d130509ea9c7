import type { ColumnSpec } from './column-types.js';

/** Normalized columns of the `calls` table (v1 calls and v2 calls alike). */
export const callColumns: readonly ColumnSpec[] = Object.freeze([
  { name: 'to_number', type: 'text' },
  { name: 'from_number', type: 'text' },
  { name: 'direction', type: 'text' },
  { name: 'recording_url', type: 'text' },
  { name: 'transcription_text', type: 'text' },
  { name: 'created_at', type: 'timestamp' },
  { name: 'duration_seconds', type: 'integer' },
  { name: 'status', type: 'text' },
  { name: 'updated_at', type: 'timestamp' },
  { name: 'tracking_number_id', type: 'text' },
]);

/** Normalized columns of the `voicemails` table. */
export const voicemailColumns: readonly ColumnSpec[] = Object.freeze([
  { name: 'to_number', type: 'text' },
  { name: 'from_number', type: 'text' },
  { name: 'transcription_text', type: 'text' },
  { name: 'transcription_summary', type: 'text' },
  { name: 'recording_type', type: 'text' },
  { name: 'recording_url', type: 'text' },
  { name: 'api_recording_url', type: 'text' },
  { name: 'duration_seconds', type: 'integer' },
  { name: 'created_at', type: 'timestamp' },
]);

/** Normalized columns of the `numbers` table; everything else v1 returns stays in `raw`. */
export const numberColumns: readonly ColumnSpec[] = Object.freeze([{ name: 'number', type: 'text' }]);

/** Normalized columns of a config-declared extra v1 stream; `created_at` is null without `createdAtField`. */
export const genericColumns: readonly ColumnSpec[] = Object.freeze([{ name: 'created_at', type: 'timestamp' }]);
