import { callColumns, voicemailColumns } from '../../../src/normalize/columns.js';
import type { Batch, Checkpoint, ColumnValue, DeadLetter, Json, JsonObject, StreamTable, SyncRecord } from '../../../src/sink/sink.js';

/** Hand-built records in v1 form, so the suite does not depend on the normalizers (only on their column lists). */

export const callsTable: StreamTable = { stream: 'calls', table: 'calls', columns: callColumns };

export const voicemailsTable: StreamTable = { stream: 'voicemails', table: 'voicemails', columns: voicemailColumns };

/** A stream that is not built in, with only the generic columns. */
export const smsTable: StreamTable = { stream: 'sms', table: 'sms', columns: [{ name: 'created_at', type: 'timestamp' }] };

export function callRecord(businessId: string, id: string, transcription = `hello from ${id}`): SyncRecord {
  const fields: Record<string, ColumnValue> = {
    to_number: '+15550100001',
    from_number: '+15550199999',
    direction: 'inbound',
    recording_url: `https://calls.example.com/acct/recordings/main/${id}.wav`,
    transcription_text: transcription,
    created_at: '2024-03-01T10:15:00Z',
    duration_seconds: 73,
    status: 'completed',
    updated_at: '2024-03-01T10:17:00Z',
    tracking_number_id: 'tn-1',
  };
  return { businessId, id, source: 'v1', fields, raw: { id, ...fields } };
}

export function voicemailRecord(businessId: string, id: string, overrides: Record<string, ColumnValue> = {}): SyncRecord {
  const fields: Record<string, ColumnValue> = {
    to_number: '+15550100001',
    from_number: '+15550122222',
    transcription_text: 'please call back',
    transcription_summary: null,
    recording_type: 'voicemail',
    recording_url: `https://calls.example.com/acct/recordings/ivr/${id}.wav`,
    api_recording_url: `https://telephony.example.net/rec/${id}`,
    duration_seconds: 42,
    created_at: '2024-03-02T08:00:05Z',
    ...overrides,
  };
  const raw: Json = { uuid: Number(id.replace(/\D/g, '') || 0), voicemail_duration: '00:00:42', ...fields };
  return { businessId, id, source: 'v2', fields, raw };
}

export function smsRecord(businessId: string, id: string): SyncRecord {
  const fields = { created_at: '2024-03-03T12:00:00Z' };
  return { businessId, id, source: 'v1', fields, raw: { id, body: 'on my way', ...fields } };
}

export function batchOf(businessId: string, table: StreamTable, records: readonly SyncRecord[], deadLetters: readonly DeadLetter[] = []): Batch {
  return { businessId, table, records, deadLetters };
}

export function checkpointAt(businessId: string, stream: string, position: JsonObject, recordsSynced = 0): Checkpoint {
  return { businessId, stream, position, recordsSynced };
}
